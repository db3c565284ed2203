/** Time as an input: production passes `systemClock`, unit tests a fixed or stepped clock. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
