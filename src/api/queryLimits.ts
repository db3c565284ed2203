import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type ASTNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination/pageRequest.js';

/** Deepest selection nesting accepted (the contract's deepest useful query is about 7). */
export const MAX_DEPTH = 12;
/** Field selections (aliases included) accepted in one document. */
export const MAX_FIELDS = 500;
/** Lexical tokens the parser reads before giving up, so a huge document costs little to refuse. */
export const MAX_TOKENS = 10_000;
/** Aliased fields accepted in one document: a few are handy, hundreds are a flood (each one runs its resolver). */
export const MAX_ALIASES = 30;
/**
 * Most fields one operation may resolve, counting each field once per item of the lists above it:
 * a connection counts its `first`/`last` (20 when omitted, 100 when a variable), previewSchedule its
 * `count`, another list field 10 (a connection's own `edges` list is already counted by its page).
 * A page of 100 executions with every field and their attempts costs about 9 000; 100 jobs with
 * 100 executions under each cost over 30 000 and are refused. Schedule math costs more (below).
 */
export const MAX_COST = 20_000;
/**
 * What one search for a schedule occurrence adds to the cost: each item of previewSchedule and each
 * Job.nextRunAt runs one on the main thread, 100 to 220 µs for the rarest cron allowed in a zone whose
 * offsets are not cached yet (measured on a 2-core machine, idle and loaded), where a plain field
 * costs a few µs. So one request runs at most MAX_COST / (SCHEDULE_SEARCH_COST + 2) = 217 searches,
 * about 22 to 48 ms: previewSchedule with count 100 fits twice, and the dashboard's page of jobs
 * with their nextRunAt (priced at 100 jobs) still fits. The tenant's rate of them is ScheduleSearchBudget's.
 */
export const SCHEDULE_SEARCH_COST = 90;
/** Fields whose resolver searches a schedule once per item they return. */
const SCHEDULE_SEARCH_FIELDS = new Set(['Query.previewSchedule', 'Job.nextRunAt']);

/** Assumed length of a list field that has no size argument (attempts, headers, byStatus, apiKeys). */
const LIST_SIZE = 10;
const PREVIEW_DEFAULT_COUNT = 5;

/**
 * Fragments are measured once each (memo), so a "fragment bomb" (each fragment spreading the
 * next twice) costs linear time to measure; a fragment within its own spread counts 0 (the
 * standard rules reject such cycles anyway).
 */
interface Measure {
  context: ValidationContext;
  depth: Map<string, number>;
  cost: Map<string, number>;
}

function selectionDepth(node: ASTNode, m: Measure): number {
  if (node.kind === Kind.FRAGMENT_SPREAD) {
    const name = node.name.value;
    const fragment = m.context.getFragment(name);
    if (!fragment) return 0;
    if (!m.depth.has(name)) {
      m.depth.set(name, 0);
      m.depth.set(name, selectionDepth(fragment, m));
    }
    return m.depth.get(name)!;
  }
  if (!('selectionSet' in node) || !node.selectionSet) return 0;
  const nested = node.selectionSet.selections.map((s) => selectionDepth(s, m));
  return (node.kind === Kind.FIELD ? 1 : 0) + Math.max(0, ...nested);
}

/** The value of an Int argument: its literal, `ifVariable` when passed as a variable, `ifAbsent` when omitted. */
function intArgument(node: FieldNode, name: string, ifAbsent: number, ifVariable: number): number | null {
  const argument = node.arguments?.find((a) => a.name.value === name);
  if (!argument) return null;
  if (argument.value.kind === Kind.INT) return Math.max(0, Number(argument.value.value));
  if (argument.value.kind === Kind.VARIABLE) return ifVariable;
  return ifAbsent;
}

/** How many items a field stands for: its page size, preview count, or LIST_SIZE for other lists. */
function itemCount(node: FieldNode, field: GraphQLField<unknown, unknown> | undefined, parent: GraphQLNamedType | undefined): number {
  if (!field || parent?.name.endsWith('Connection')) return 1;
  const names = new Set(field.args.map((a) => a.name));
  if (names.has('first') && names.has('last')) {
    return (
      intArgument(node, 'first', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) ??
      intArgument(node, 'last', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) ??
      DEFAULT_PAGE_SIZE
    );
  }
  if (names.has('count')) return intArgument(node, 'count', PREVIEW_DEFAULT_COUNT, MAX_PAGE_SIZE) ?? PREVIEW_DEFAULT_COUNT;
  return isListType(getNullableType(field.type)) ? LIST_SIZE : 1;
}

function selectionCost(set: SelectionSetNode, parent: GraphQLNamedType | undefined, m: Measure): number {
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const field = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[selection.name.value] : undefined;
      const child = selection.selectionSet ? selectionCost(selection.selectionSet, field && getNamedType(field.type), m) : 0;
      const search = field && SCHEDULE_SEARCH_FIELDS.has(`${parent!.name}.${field.name}`) ? SCHEDULE_SEARCH_COST : 0;
      cost += 1 + itemCount(selection, field, parent) * (child + search);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? m.context.getSchema().getType(selection.typeCondition.name.value) : parent;
      cost += selectionCost(selection.selectionSet, type ?? undefined, m);
    } else {
      const name = selection.name.value;
      const fragment = m.context.getFragment(name);
      if (!fragment) continue;
      if (!m.cost.has(name)) {
        m.cost.set(name, 0);
        const type = m.context.getSchema().getType(fragment.typeCondition.name.value) ?? undefined;
        m.cost.set(name, selectionCost(fragment.selectionSet, type, m));
      }
      cost += m.cost.get(name)!;
    }
  }
  return cost;
}

/**
 * Refuses, before anything runs, documents nested deeper than MAX_DEPTH, with more than MAX_FIELDS
 * field selections or MAX_ALIASES aliases, or an operation costing more than MAX_COST. Reported
 * as BAD_USER_INPUT like any invalid document.
 */
export const queryLimits: ValidationRule = (context) => {
  let fields = 0;
  let aliases = 0;
  const measure: Measure = { context, depth: new Map(), cost: new Map() };
  return {
    Field(node) {
      fields += 1;
      if (fields === MAX_FIELDS + 1) context.reportError(new GraphQLError(`The query selects more than ${MAX_FIELDS} fields`));
      if (node.alias) aliases += 1;
      if (aliases === MAX_ALIASES + 1) context.reportError(new GraphQLError(`The query uses more than ${MAX_ALIASES} aliases`));
    },
    OperationDefinition(node) {
      const depth = selectionDepth(node, measure);
      if (depth > MAX_DEPTH)
        context.reportError(
          new GraphQLError(`The query is nested ${depth} levels deep; at most ${MAX_DEPTH} are allowed`, { nodes: [node] }),
        );
      const root = context.getSchema().getRootType(node.operation) ?? undefined;
      const cost = selectionCost(node.selectionSet, root, measure);
      if (cost > MAX_COST) {
        context.reportError(
          new GraphQLError(
            `The query costs ${cost}; at most ${MAX_COST} is allowed (each field counts once per item of the lists above it, first/last and count count each item, and every previewSchedule item and nextRunAt counts ${SCHEDULE_SEARCH_COST}: ask for smaller pages or fewer occurrences)`,
            { nodes: [node] },
          ),
        );
      }
    },
  };
};
