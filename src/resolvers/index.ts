import { AlertResolver } from './alert.resolver.js';
import { ApiKeyResolver } from './apiKey.resolver.js';
import { BulkOperationResolver } from './bulkOperation.resolver.js';
import { CalendarResolver } from './calendar.resolver.js';
import { ExecutionResolver } from './execution.resolver.js';
import { HttpHeaderResolver } from './httpHeader.resolver.js';
import { JobResolver } from './job.resolver.js';
import { JobConnectionResolver } from './jobConnection.resolver.js';
import { NodeResolver } from './node.resolver.js';
import { ScheduleResolver } from './schedule.resolver.js';
import { SubscriptionResolver } from './subscription.resolver.js';
import { ViewerResolver } from './viewer.resolver.js';
import { BackfillResolver } from './backfill.resolver.js';
// Imported last: type-graphql lists types in the order their classes load, so the change history's come after the others.
import { ChangeResolver, JobChangesResolver } from './change.resolver.js';

export const resolvers = [
  ViewerResolver,
  NodeResolver,
  JobResolver,
  JobConnectionResolver,
  ExecutionResolver,
  ScheduleResolver,
  HttpHeaderResolver,
  ApiKeyResolver,
  BulkOperationResolver,
  CalendarResolver,
  AlertResolver,
  SubscriptionResolver,
  BackfillResolver,
  ChangeResolver,
  JobChangesResolver,
] as const;
