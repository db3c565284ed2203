import { renameSync, writeFileSync } from 'node:fs';
import { MongoClient, type CommandStartedEvent, type CommandSucceededEvent } from 'mongodb';
import { Pipeline, Redis } from 'ioredis';

/** What a process sent to MongoDB and Redis so far (bench only). */
export interface CommandCounts {
  /** MongoDB commands, i.e. round trips (reads included). */
  mongoCommands: number;
  /** Write statements: each statement of an insert/update/delete command counts (FerretDB pays per statement, MongoDB per document). */
  mongoWrites: number;
  /** Documents the writes changed, from the replies (an updateMany statement may change many). */
  mongoDocsChanged: number;
  /** Redis round trips: a single command or a whole pipeline / MULTI. */
  redisRoundTrips: number;
  /** Redis commands, counting each command inside a pipeline. */
  redisCommands: number;
}

export const counts: CommandCounts = { mongoCommands: 0, mongoWrites: 0, mongoDocsChanged: 0, redisRoundTrips: 0, redisCommands: 0 };

function onMongoReply(event: CommandSucceededEvent): void {
  const reply = event.reply as { n?: number; nModified?: number; lastErrorObject?: { n?: number } } | undefined;
  if (event.commandName === 'insert' || event.commandName === 'delete') counts.mongoDocsChanged += reply?.n ?? 0;
  else if (event.commandName === 'update') counts.mongoDocsChanged += reply?.nModified ?? reply?.n ?? 0;
  else if (event.commandName === 'findAndModify') counts.mongoDocsChanged += reply?.lastErrorObject?.n ?? 0;
}

function onMongoCommand(event: CommandStartedEvent): void {
  counts.mongoCommands++;
  const c = event.command as Record<string, unknown>;
  const statements = (field: string) => (Array.isArray(c[field]) ? (c[field] as unknown[]).length : 0);
  if (event.commandName === 'insert') counts.mongoWrites += statements('documents');
  else if (event.commandName === 'update') counts.mongoWrites += statements('updates');
  else if (event.commandName === 'delete') counts.mongoWrites += statements('deletes');
  else if (event.commandName === 'findAndModify') counts.mongoWrites += 1;
}

/**
 * Loaded with `node --import .../commandCounter.js?out=FILE` by `npm run bench` in the Kairos
 * processes it measures: turns on the MongoDB driver's command monitoring for every client the
 * process opens and counts ioredis' commands (BullMQ's included, which uses the same ioredis), then
 * writes the counts to FILE every 200 ms. Patching is confined to the benchmark.
 */
function install(): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
  const connect = MongoClient.prototype.connect;
  MongoClient.prototype.connect = function (this: MongoClient & { monitorCommands: boolean }) {
    if (!this.monitorCommands) {
      // The driver's setter (not in its typings): its clients then emit command events.
      this.monitorCommands = true;
      this.on('commandStarted', onMongoCommand);
      this.on('commandSucceeded', onMongoReply);
    }
    return connect.call(this);
  };
  // ioredis sends a pipeline's commands with the pipeline's stream as second argument.
  const proto = Redis.prototype as unknown as { sendCommand: (command: unknown, stream?: unknown) => unknown };
  const send = proto.sendCommand;
  proto.sendCommand = function (this: unknown, command: unknown, stream?: unknown) {
    counts.redisCommands++;
    if (stream === undefined) counts.redisRoundTrips++;
    return send.call(this, command, stream);
  };
  // One round trip per pipeline, MULTI or auto-pipelined batch: all of them run Pipeline#exec once.
  const pipelineProto = Pipeline.prototype as unknown as { exec: (...args: unknown[]) => unknown };
  const exec = pipelineProto.exec;
  pipelineProto.exec = function (this: unknown, ...args: unknown[]) {
    counts.redisRoundTrips++;
    return exec.apply(this, args);
  };
}

install();
const out = new URL(import.meta.url).searchParams.get('out');
if (out) {
  // Written aside and renamed into place: the bench reads the file at any moment, and a half-written
  // file read as "nothing counted yet" once made a whole case's counts zero or negative.
  const write = () => {
    writeFileSync(`${out}.tmp`, JSON.stringify(counts));
    renameSync(`${out}.tmp`, out);
  };
  setInterval(write, 200).unref();
  process.on('exit', write);
}
