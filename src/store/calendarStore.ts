import type { Filter } from 'mongodb';
import type { CalendarDoc } from '../domain/calendar.js';
import type { ExclusionWindow } from '../domain/exclusion.js';
import type { PageRequest } from '../pagination/pageRequest.js';
import { collections, type Collections } from './collections.js';
import { keysetFilter } from './keyset.js';
import { isDuplicateKey } from './mongo.js';
import type { Db } from 'mongodb';

/**
 * A tenant's named calendars, and the copies of their windows in the jobs that name them
 * (JobExclusionFields.calendarWindows). Built per request with the tenant from the token, like JobStore.
 */
export class CalendarStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    private readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  private scoped<T>(filter: Filter<T> = {}): Filter<T> {
    return { ...filter, tenantId: this.tenantId };
  }

  /** Inserts a calendar; null when the tenant has one of that name already. */
  async insert(calendar: Omit<CalendarDoc, 'tenantId'>): Promise<CalendarDoc | null> {
    const doc = { ...calendar, tenantId: this.tenantId };
    try {
      await this.c.calendars.insertOne(doc);
      return doc;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  async findByName(name: string): Promise<CalendarDoc | null> {
    return this.c.calendars.findOne(this.scoped<CalendarDoc>({ name }));
  }

  /** The calendars of these names that exist (one query; names are equality keys). */
  async findByNames(names: string[]): Promise<CalendarDoc[]> {
    if (names.length === 0) return [];
    return this.c.calendars.find(this.scoped<CalendarDoc>({ name: { $in: names } })).toArray();
  }

  async count(): Promise<number> {
    return this.c.calendars.countDocuments(this.scoped<CalendarDoc>());
  }

  /** Replaces a calendar's windows and description; the calendar as written, or null when there is none of that name. */
  async update(name: string, change: Pick<CalendarDoc, 'windows' | 'description' | 'updatedAt'>): Promise<CalendarDoc | null> {
    return this.c.calendars.findOneAndUpdate(this.scoped<CalendarDoc>({ name }), { $set: change }, { returnDocument: 'after' });
  }

  async delete(name: string): Promise<boolean> {
    return (await this.c.calendars.deleteOne(this.scoped<CalendarDoc>({ name }))).deletedCount === 1;
  }

  /** Newest first (createdAt, then _id); fetches `limit + 1` rows so the caller knows whether there is more. */
  async list(page: PageRequest): Promise<CalendarDoc[]> {
    const direction = page.forward ? -1 : 1;
    const keyset = keysetFilter<CalendarDoc>('createdAt', page);
    return this.c.calendars
      .find(this.scoped<CalendarDoc>(keyset.length > 0 ? { $and: keyset } : {}))
      .sort({ createdAt: direction, _id: direction })
      .limit(page.limit + 1)
      .toArray();
  }

  /** The names of up to `limit` of the tenant's jobs that name the calendar in their exclusions. */
  async jobsNaming(name: string, limit: number): Promise<string[]> {
    const jobs = await this.c.jobs
      .find(this.scoped({ calendarNames: name }), { projection: { name: 1 } })
      .limit(limit)
      .toArray();
    return jobs.map((job) => job.name);
  }

  /**
   * Copies the calendar's windows into every job of the tenant that names it: one statement however
   * many jobs (an equality on the jobs' `calendarNames`). The jobs' version is left alone: the copy
   * is not a change of their definition, and a scheduler pass that read a job before it keeps its
   * compare-and-set (it materialised up to its horizon with the windows it read).
   */
  async copyToJobs(name: string, windows: ExclusionWindow[], now: Date): Promise<number> {
    const result = await this.c.jobs.updateMany(this.scoped({ calendarNames: name }), {
      $set: { [`calendarWindows.${name}`]: windows, updatedAt: now },
    });
    return result.modifiedCount;
  }
}
