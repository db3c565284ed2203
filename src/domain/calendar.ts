import type { ObjectId } from 'mongodb';
import type { ExclusionWindow } from './exclusion.js';

/** The `calendars` collection's document: a tenant's named set of exclusion windows, which its jobs name in their exclusions. */
export interface CalendarDoc {
  _id: ObjectId;
  tenantId: string;
  /** Unique in the tenant; what jobs name (`exclusions: [{ calendar: name }]`). */
  name: string;
  description: string | null;
  windows: ExclusionWindow[];
  createdAt: Date;
  updatedAt: Date;
}

/** At most this many calendars per tenant (each job naming one carries a copy of its windows). */
export const MAX_CALENDARS_PER_TENANT = 100;
