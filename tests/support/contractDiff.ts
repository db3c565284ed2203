import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

export interface ContractDiffOptions {
  /** Also report descriptions the contract has that the printed schema lacks or words differently. Default false. */
  descriptions?: boolean;
}

function kindOf(type: GraphQLNamedType): string {
  if (isScalarType(type)) return 'scalar';
  if (isObjectType(type)) return 'type';
  if (isInterfaceType(type)) return 'interface';
  if (isUnionType(type)) return 'union';
  if (isEnumType(type)) return 'enum';
  if (isInputObjectType(type)) return 'input';
  return 'unknown';
}

function normaliseDescription(text: string | null | undefined): string | undefined {
  const trimmed = text?.replace(/\s+/g, ' ').trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Compares a contract SDL with a server's printed SDL and returns one human-readable line per contract
 * element that is missing or different in the printed schema: types (and their kind), fields (type,
 * including nullability and list wrappers), field arguments, enum values, input fields, union members,
 * implemented interfaces and the root operation types. Elements the printed schema adds are allowed,
 * except new required (non-null, no default) arguments and input fields, which would reject requests
 * that are valid against the contract. An empty array means the printed schema contains the contract.
 */
export function contractDiff(contractSdl: string, printedSdl: string, options: ContractDiffOptions = {}): string[] {
  const contract = buildSchema(contractSdl);
  const printed = buildSchema(printedSdl);
  const problems: string[] = [];

  const checkDescription = (what: string, expected: string | null | undefined, actual: string | null | undefined) => {
    if (!options.descriptions) return;
    const want = normaliseDescription(expected);
    if (want === undefined) return;
    const got = normaliseDescription(actual);
    if (got === undefined) problems.push(`${what}: missing description ${JSON.stringify(want)}`);
    else if (got !== want) problems.push(`${what}: description ${JSON.stringify(got)}, contract has ${JSON.stringify(want)}`);
  };

  compareRootTypes(contract, printed, problems);

  for (const [name, expected] of Object.entries(contract.getTypeMap())) {
    if (name.startsWith('__')) continue;
    const actual = printed.getType(name);
    if (!actual) {
      problems.push(`${kindOf(expected)} ${name}: missing`);
      continue;
    }
    if (kindOf(actual) !== kindOf(expected)) {
      problems.push(`${name}: is a ${kindOf(actual)}, contract has a ${kindOf(expected)}`);
      continue;
    }
    checkDescription(`${kindOf(expected)} ${name}`, expected.description, actual.description);

    if ((isObjectType(expected) || isInterfaceType(expected)) && (isObjectType(actual) || isInterfaceType(actual))) {
      const actualInterfaces = new Set(actual.getInterfaces().map((i) => i.name));
      for (const iface of expected.getInterfaces()) {
        if (!actualInterfaces.has(iface.name)) problems.push(`${name}: does not implement ${iface.name}`);
      }
      const actualFields = actual.getFields();
      for (const [fieldName, field] of Object.entries(expected.getFields())) {
        const actualField = actualFields[fieldName];
        if (!actualField) {
          problems.push(`${name}.${fieldName}: missing field (contract: ${String(field.type)})`);
          continue;
        }
        if (String(actualField.type) !== String(field.type)) {
          problems.push(`${name}.${fieldName}: type ${String(actualField.type)}, contract has ${String(field.type)}`);
        }
        checkDescription(`${name}.${fieldName}`, field.description, actualField.description);
        compareArgs(`${name}.${fieldName}`, field, actualField, problems, checkDescription);
      }
    } else if (isUnionType(expected) && isUnionType(actual)) {
      const members = new Set(actual.getTypes().map((t) => t.name));
      for (const member of expected.getTypes()) {
        if (!members.has(member.name)) problems.push(`union ${name}: missing member ${member.name}`);
      }
    } else if (isEnumType(expected) && isEnumType(actual)) {
      for (const value of expected.getValues()) {
        const actualValue = actual.getValue(value.name);
        if (!actualValue) {
          problems.push(`enum ${name}: missing value ${value.name}`);
          continue;
        }
        checkDescription(`${name}.${value.name}`, value.description, actualValue.description);
      }
    } else if (isInputObjectType(expected) && isInputObjectType(actual)) {
      const expectedFields = expected.getFields();
      const actualFields = actual.getFields();
      for (const [fieldName, field] of Object.entries(expectedFields)) {
        const actualField = actualFields[fieldName];
        if (!actualField) {
          problems.push(`input ${name}.${fieldName}: missing input field (contract: ${String(field.type)})`);
          continue;
        }
        if (String(actualField.type) !== String(field.type)) {
          problems.push(`input ${name}.${fieldName}: type ${String(actualField.type)}, contract has ${String(field.type)}`);
        }
        checkDescription(`input ${name}.${fieldName}`, field.description, actualField.description);
      }
      for (const [fieldName, field] of Object.entries(actualFields)) {
        if (!expectedFields[fieldName] && isNonNullType(field.type) && field.defaultValue === undefined) {
          problems.push(`input ${name}.${fieldName}: extra required input field ${String(field.type)} not in the contract`);
        }
      }
    }
  }
  return problems;
}

function compareRootTypes(contract: GraphQLSchema, printed: GraphQLSchema, problems: string[]): void {
  const roots = [
    ['query', contract.getQueryType(), printed.getQueryType()],
    ['mutation', contract.getMutationType(), printed.getMutationType()],
    ['subscription', contract.getSubscriptionType(), printed.getSubscriptionType()],
  ] as const;
  for (const [operation, expected, actual] of roots) {
    if (!expected) continue;
    if (!actual) problems.push(`schema: missing ${operation} root type (contract: ${expected.name})`);
    else if (actual.name !== expected.name) {
      problems.push(`schema: ${operation} root type is ${actual.name}, contract has ${expected.name}`);
    }
  }
}

function compareArgs(
  where: string,
  expected: GraphQLField<unknown, unknown>,
  actual: GraphQLField<unknown, unknown>,
  problems: string[],
  checkDescription: (what: string, expected: string | null | undefined, actual: string | null | undefined) => void,
): void {
  const actualArgs = new Map<string, GraphQLArgument>(actual.args.map((a) => [a.name, a]));
  const expectedNames = new Set(expected.args.map((a) => a.name));
  for (const arg of expected.args) {
    const actualArg = actualArgs.get(arg.name);
    if (!actualArg) {
      problems.push(`${where}(${arg.name}): missing argument (contract: ${String(arg.type)})`);
      continue;
    }
    if (String(actualArg.type) !== String(arg.type)) {
      problems.push(`${where}(${arg.name}): type ${String(actualArg.type)}, contract has ${String(arg.type)}`);
    }
    checkDescription(`${where}(${arg.name})`, arg.description, actualArg.description);
  }
  for (const arg of actual.args) {
    if (!expectedNames.has(arg.name) && isNonNullType(arg.type) && arg.defaultValue === undefined) {
      problems.push(`${where}(${arg.name}): extra required argument ${String(arg.type)} not in the contract`);
    }
  }
}
