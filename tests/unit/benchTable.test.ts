import { describe, expect, it } from '@jest/globals';
import { BENCH_COLUMNS, formatBenchTable, type BenchRow } from '../../tools/bench/resultsTable.js';

const kairos: BenchRow = {
  case: 'Kairos all roles, one process',
  n: 500,
  started: 500,
  perSecond: 411.2,
  lagMs: { p50: 351, p90: 580, p99: 748, max: 753 },
  perExecution: { mongoCommands: 1.01, mongoWrites: 1.01, mongoDocsChanged: 1, redisRoundTrips: 1.31, redisCommands: 7.16 },
  settings: 'one worker process',
};
const bullmq: BenchRow = { case: 'BullMQ raw', n: 2000, started: 2000, perSecond: 9852, settings: 'concurrency 64' };
const idle: BenchRow = { ...kairos, case: 'Kairos idle', perSecond: NaN, perExecution: undefined };

/** Columns are two or more spaces apart; a header holds single spaces only. */
const cells = (line: string) => line.trim().split(/ {2,}/);

describe("npm run bench's table", () => {
  const [header, ...lines] = formatBenchTable([bullmq, kairos, idle]).split('\n');

  it('names a unit in the header of every figure column', () => {
    const headers = cells(header);
    expect(headers).toEqual(BENCH_COLUMNS.map((c) => c.header));
    expect(headers[0]).toBe('case');
    // A count of executions, a rate, a time in ms, or an amount per execution.
    for (const h of headers.slice(1)) expect(h).toMatch(/ \((exec|ms)\)$|^exec\/s$|\/exec$/);
    expect(headers).toEqual(expect.arrayContaining(['exec/s', 'lag p99 (ms)', 'redis rt/exec']));
  });

  it('puts each figure under its header, with - where a case measured nothing', () => {
    expect(lines).toHaveLength(3);
    const [b, k, i] = lines.map(cells);
    expect(k).toEqual([
      'Kairos all roles, one process',
      '500',
      '500',
      '411',
      '351',
      '580',
      '748',
      '753',
      '1.01',
      '1.01',
      '1.00',
      '1.31',
      '7.16',
    ]);
    expect(b).toEqual(['BullMQ raw', '2000', '2000', '9852', ...Array(9).fill('-')]);
    expect(i[3]).toBe('-');
    expect(i.slice(8)).toEqual(Array(5).fill('-'));
  });

  it('right-aligns the figures under their headers', () => {
    const end = header.indexOf('lag p99 (ms)') + 'lag p99 (ms)'.length;
    for (const line of lines) expect(line[end - 1]).toMatch(/\d|-/);
    expect(lines.every((l) => l.length === header.length)).toBe(true);
  });
});
