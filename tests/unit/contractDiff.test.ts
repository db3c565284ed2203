import { describe, expect, it } from '@jest/globals';
import { contractDiff } from '../support/contractDiff.js';

const base = `
  "A thing."
  interface Node { id: ID! }
  enum Color { RED GREEN }
  type A implements Node { id: ID! name: String! tags: [String!]! items(first: Int, filter: Filter): [String] }
  type B { x: Int }
  union U = A | B
  input Filter { name: String color: Color! }
  type Query { a(id: ID!): A u: U }
`;

describe('contractDiff', () => {
  it('returns [] for identical schemas', () => {
    expect(contractDiff(base, base)).toEqual([]);
  });

  it('allows extra types, fields, optional arguments, enum values and members', () => {
    const printed = base
      .replace('enum Color { RED GREEN }', 'enum Color { RED GREEN BLUE }')
      .replace('type B { x: Int }', 'type B { x: Int y: String } type C { z: Int }')
      .replace('union U = A | B', 'union U = A | B | C')
      .replace('items(first: Int,', 'items(first: Int, last: Int, limit: Int! = 5,')
      .replace('input Filter { name: String', 'input Filter { name: String extra: Int');
    expect(contractDiff(base, printed)).toEqual([]);
  });

  it('reports a missing field', () => {
    const printed = base.replace('name: String! tags', 'tags');
    expect(contractDiff(base, printed)).toEqual(['A.name: missing field (contract: String!)']);
  });

  it('reports a nullability change', () => {
    const printed = base.replace('name: String!', 'name: String');
    expect(contractDiff(base, printed)).toEqual(['A.name: type String, contract has String!']);
  });

  it('reports list wrapper and item nullability changes', () => {
    const printed = base.replace('tags: [String!]!', 'tags: [String]!');
    expect(contractDiff(base, printed)).toEqual(['A.tags: type [String]!, contract has [String!]!']);
  });

  it('reports a missing enum value', () => {
    const printed = base.replace('enum Color { RED GREEN }', 'enum Color { RED }');
    expect(contractDiff(base, printed)).toEqual(['enum Color: missing value GREEN']);
  });

  it('reports a missing argument and an argument type change', () => {
    const printed = base.replace('items(first: Int, filter: Filter)', 'items(first: String)');
    expect(contractDiff(base, printed)).toEqual([
      'A.items(first): type String, contract has Int',
      'A.items(filter): missing argument (contract: Filter)',
    ]);
  });

  it('reports an extra required argument', () => {
    const printed = base.replace('a(id: ID!)', 'a(id: ID!, tenant: String!)');
    expect(contractDiff(base, printed)).toEqual(['Query.a(tenant): extra required argument String! not in the contract']);
  });

  it('reports a missing input field and an input field type change', () => {
    const printed = base.replace('input Filter { name: String color: Color! }', 'input Filter { color: Color }');
    expect(contractDiff(base, printed)).toEqual([
      'input Filter.name: missing input field (contract: String)',
      'input Filter.color: type Color, contract has Color!',
    ]);
  });

  it('reports a missing union member', () => {
    const printed = base.replace('union U = A | B', 'union U = A');
    expect(contractDiff(base, printed)).toEqual(['union U: missing member B']);
  });

  it('reports a missing interface implementation', () => {
    const printed = base.replace('type A implements Node', 'type A').replace('type Query', 'type N implements Node { id: ID! } type Query');
    expect(contractDiff(base, printed)).toEqual(['A: does not implement Node']);
  });

  it('reports a missing type and a type of another kind', () => {
    const printed = base.replace('union U = A | B', 'type U { a: A }').replace('type B { x: Int }', '');
    const diff = contractDiff(base.replace('type B { x: Int }', 'type B { x: Int } type D { y: Int }'), printed);
    expect(diff).toEqual(expect.arrayContaining(['type B: missing', 'type D: missing', 'U: is a type, contract has a union']));
    expect(diff).toHaveLength(3);
  });

  it('reports root operation types', () => {
    const contract = `${base} type Mutation { m: Int } schema { query: Query mutation: Mutation }`;
    expect(contractDiff(contract, base)).toEqual(['schema: missing mutation root type (contract: Mutation)', 'type Mutation: missing']);
    const renamed = `${base} type Mut { m: Int } schema { query: Query mutation: Mut }`;
    expect(contractDiff(contract, renamed)).toEqual(['schema: mutation root type is Mut, contract has Mutation', 'type Mutation: missing']);
  });

  it('checks descriptions only when asked', () => {
    const contract = `"Doc of B." type B2 { "Doc of x." x: Int } ${base}`;
    const printed = `type B2 { "Other doc." x: Int } ${base}`;
    expect(contractDiff(contract, printed)).toEqual([]);
    expect(contractDiff(contract, printed, { descriptions: true })).toEqual([
      'type B2: missing description "Doc of B."',
      'B2.x: description "Other doc.", contract has "Doc of x."',
    ]);
  });
});
