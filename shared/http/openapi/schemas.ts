import * as z from '../../kernel/zod';

/**
 * zod schemas to OpenAPI 3.0.3 schemas. zod's `openapi-3.0` target does most of the translation;
 * `toOpenApi30` then removes or rewrites whatever JSON Schema keyword OpenAPI 3.0 still forbids,
 * so a schema written for validation never makes the document invalid. Schemas named with
 * `z.meta({ id: 'Account' })` become `components.schemas` entries shared by every operation that
 * uses them (./document.ts builds the document around them).
 */

export type JsonObject = { [key: string]: unknown };
export type OpenApiDocument = JsonObject & { openapi: '3.0.3'; paths: Record<string, Record<string, JsonObject>> };

export type Io = 'input' | 'output';

/**
 * Converts zod schemas and gathers the named ones into `components.schemas`. A named schema can
 * read differently as input and as output (defaults, transforms, unknown keys stripped): then the
 * output keeps the name and the input variant is `<name>Input`. Names are settled only once every
 * schema is converted, so the result does not depend on the order of the routes.
 */
export class SchemaCollector {
  private readonly converted: { io: Io; nodes: JsonObject[] }[] = [];
  private readonly named = new Map<string, Record<Io, Map<string, JsonObject>>>();

  convert(schema: z.core.$ZodType, io: Io, where: string, options: { inlineRoot?: boolean } = {}): JsonObject {
    const raw = z.toJSONSchema(schema, {
      target: 'openapi-3.0',
      io,
      unrepresentable: (site) => unrepresentable(site, where),
      override: ({ zodSchema, jsonSchema }) => {
        // A default applied in a transform (a query value: `pageLimit`), which zod cannot see: its meta says it.
        const inputDefault = (z.globalRegistry.get(zodSchema) as { inputDefault?: unknown } | undefined)?.inputDefault;
        if (io === 'input' && inputDefault !== undefined) jsonSchema.default = inputDefault;
        if (io !== 'output') return;
        // zod closes every output object because it strips unknown keys; a client reading a
        // response must instead tolerate fields added later. Only a strict object stays closed.
        const def = zodSchema._zod.def;
        if (def.type === 'object' && !def.catchall && jsonSchema.additionalProperties === false) {
          delete jsonSchema.additionalProperties;
        }
        // What the server writes, `format` says well enough; the regex zod checks a uuid or a
        // timestamp with is the contract for requests only, and would bury every response in noise.
        if (typeof jsonSchema.format === 'string' && FORMATS_WITH_PATTERNS.has(jsonSchema.format)) delete jsonSchema.pattern;
        // Likewise the safe-integer bounds zod puts on every `.int()`: a server never writes past them.
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    }) as JsonObject;
    const { definitions, ...rootRaw } = raw;
    const defs = new Map<string, JsonObject>();
    const renames = new Map<string, string>();
    for (const [id, def] of Object.entries((definitions as Record<string, JsonObject> | undefined) ?? {})) {
      // zod names an unnamed recursive schema `__schema0`; make it unique to this conversion.
      const name = id.startsWith('__schema') ? `${where.replace(/\W/g, '_')}_${id.slice('__schema'.length)}` : id;
      if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`${where}: schema id "${id}" is not a valid component name`);
      renames.set(id, name);
      defs.set(name, toOpenApi30(def));
    }
    const localRefs = (node: JsonObject) =>
      rewriteRefs(node, (ref) => {
        const id = ref.slice('#/definitions/'.length);
        return `#/definitions/${renames.get(id) ?? id}`;
      });

    let root = toOpenApi30(rootRaw);
    if (options.inlineRoot && typeof root.$ref === 'string' && Object.keys(root).length === 1) {
      root = structuredClone(defs.get(renames.get(root.$ref.slice('#/definitions/'.length)) ?? '') ?? root);
    }
    const nodes = [root, ...defs.values()];
    nodes.forEach(localRefs);
    for (const [name, def] of defs) {
      const variants = this.named.get(name) ?? { input: new Map(), output: new Map() };
      variants[io].set(JSON.stringify(def), def);
      this.named.set(name, variants);
    }
    this.converted.push({ io, nodes });
    return root;
  }

  /** Settles the component names, points every `$ref` at them, and returns `components.schemas`. */
  finish(): Record<string, JsonObject> {
    for (const [name, variants] of this.named) {
      for (const io of ['input', 'output'] as const) {
        if (variants[io].size > 1) {
          throw new Error(`Two different schemas are named "${name}" (${io}); give each its own z.meta({ id })`);
        }
      }
    }
    // A named schema splits when its two sides differ, or when it refers to one that splits.
    const split = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const [name, variants] of this.named) {
        if (split.has(name)) continue;
        const [input] = variants.input.keys();
        const [output] = variants.output.keys();
        if (input === undefined || output === undefined) continue;
        if (input !== output || refsIn(input).some((ref) => split.has(ref))) {
          split.add(name);
          grew = true;
        }
      }
    }
    const nameOf = (name: string, io: Io) => (io === 'input' && split.has(name) ? `${name}Input` : name);

    const components: Record<string, JsonObject> = {};
    for (const [name, variants] of this.named) {
      for (const io of ['input', 'output'] as const) {
        const [schema] = variants[io].values();
        if (!schema) continue;
        const componentName = nameOf(name, io);
        const existing = components[componentName];
        if (existing && existing !== schema && JSON.stringify(existing) !== JSON.stringify(schema)) {
          throw new Error(`Component schema name "${componentName}" is used twice; rename one z.meta({ id })`);
        }
        components[componentName] = schema;
      }
    }
    for (const { io, nodes } of this.converted) {
      for (const node of nodes) rewriteRefs(node, (ref) => `#/components/schemas/${nameOf(ref.slice('#/definitions/'.length), io)}`);
    }
    return components;
  }
}

const refsIn = (json: string) => [...json.matchAll(/"#\/definitions\/([^"]+)"/g)].map((match) => match[1]!);

const FORMATS_WITH_PATTERNS = new Set(['uuid', 'guid', 'date-time', 'date', 'time', 'duration', 'email', 'ipv4', 'ipv6', 'cidrv4', 'cidrv6']);

function unrepresentable(
  site: { zodSchema: z.core.$ZodType; path: (string | number)[]; message: string },
  where: string,
): z.core.JSONSchema.BaseSchema {
  const type = site.zodSchema._zod.def.type;
  // `undefined` is how an optional union member or body says "absent"; toOpenApi30 prunes the branch.
  if (type === 'undefined' || type === 'void') return { not: {} };
  // A Date leaves a handler as JSON.stringify writes it.
  if (type === 'date') return { type: 'string', format: 'date-time' };
  const at = site.path.length > 0 ? ` at ${site.path.join('.')}` : '';
  throw new Error(`${where}: ${site.message}${at}; describe it with a representable schema`);
}

function rewriteRefs(node: unknown, rewrite: (ref: string) => string): void {
  if (Array.isArray(node)) {
    node.forEach((item) => rewriteRefs(item, rewrite));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) node.$ref = rewrite(value);
    else rewriteRefs(value, rewrite);
  }
}

/** Schema Object keywords OpenAPI 3.0.3 allows; anything else, except `x-` extensions, is dropped. */
const OPENAPI_30_KEYWORDS = new Set([
  '$ref',
  'title',
  'description',
  'type',
  'format',
  'nullable',
  'enum',
  'default',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'discriminator',
  'xml',
  'externalDocs',
]);

const isNothing = (schema: unknown) => isObject(schema) && Object.keys(schema).length === 1 && isObject(schema.not) && Object.keys(schema.not).length === 0;

/**
 * Rewrites one JSON Schema (and its subschemas) into an OpenAPI 3.0 Schema Object: `const` to
 * `enum`, type arrays and `null` to `nullable`, numeric exclusive bounds to the boolean form,
 * tuples to `items`, `examples` to `example`; drops keywords 3.0 does not have (`$schema`,
 * `propertyNames`, `contentEncoding`, `if`...). zod's `openapi-3.0` target already does most of
 * this; the rest is here so a schema written for validation never invalidates the document.
 */
export function toOpenApi30(input: JsonObject): JsonObject {
  if (typeof input.$ref === 'string') {
    const { $ref, ...rest } = input;
    const siblings = Object.keys(rest).filter((key) => OPENAPI_30_KEYWORDS.has(key) || key.startsWith('x-'));
    // 3.0 ignores the siblings of a $ref; wrapping keeps them (nullable, description) meaningful.
    return siblings.length === 0 ? { $ref } : toOpenApi30({ ...rest, allOf: [{ $ref }, ...((rest.allOf as JsonObject[]) ?? [])] });
  }
  const schema: JsonObject = { ...input };

  if ('const' in schema) {
    schema.enum = [schema.const];
    delete schema.const;
  }

  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.includes('null')) {
    schema.nullable = true;
    const others = types.filter((type) => type !== 'null');
    if (others.length === 0) {
      delete schema.type;
      schema.enum = [null];
    } else if (others.length === 1) {
      schema.type = others[0];
    } else {
      delete schema.type;
      schema.anyOf = others.map((type) => ({ type }));
    }
  } else if (types.length > 1) {
    delete schema.type;
    schema.anyOf = types.map((type) => ({ type }));
  }

  for (const [exclusive, inclusive] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const bound = schema[exclusive];
    if (typeof bound !== 'number') continue;
    const current = schema[inclusive];
    const stricter =
      typeof current !== 'number' || (inclusive === 'minimum' ? bound >= current : bound <= current);
    if (stricter) {
      schema[inclusive] = bound;
      schema[exclusive] = true;
    } else {
      delete schema[exclusive];
    }
  }

  if (Array.isArray(schema.examples)) {
    if (!('example' in schema) && schema.examples.length > 0) schema.example = schema.examples[0];
    delete schema.examples;
  }

  // Tuples: 3.0 has one `items` schema; describe each position as one of the listed ones.
  const positional = [
    ...(Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonObject[]) : []),
    ...(Array.isArray(schema.items) ? (schema.items as JsonObject[]) : []),
  ];
  if (positional.length > 0) {
    const rest = isObject(schema.items) && !Array.isArray(schema.items) ? [schema.items] : [];
    const all = [...positional, ...rest];
    schema.items = all.length === 1 ? all[0] : { anyOf: all };
    if (schema.type === undefined) schema.type = 'array';
  }

  if (isObject(schema.patternProperties)) {
    const values = Object.values(schema.patternProperties) as JsonObject[];
    if (schema.additionalProperties === undefined && values.length > 0) {
      schema.additionalProperties = values.length === 1 ? values[0] : { anyOf: values };
    }
  }

  // Subschemas.
  if (isObject(schema.properties)) {
    schema.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, toOpenApi30(property as JsonObject)]),
    );
  }
  if (isObject(schema.additionalProperties)) schema.additionalProperties = toOpenApi30(schema.additionalProperties);
  if (isObject(schema.items)) schema.items = toOpenApi30(schema.items);
  if (isObject(schema.not)) schema.not = toOpenApi30(schema.not);
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (!Array.isArray(schema[combinator])) continue;
    const branches = (schema[combinator] as JsonObject[]).map(toOpenApi30);
    // A branch that matches nothing (an `undefined` member) adds nothing to a union.
    const kept = combinator === 'allOf' ? branches : branches.filter((branch) => !isNothing(branch));
    if (kept.length === 0) {
      delete schema[combinator];
      schema.not = {};
    } else {
      schema[combinator] = kept;
    }
  }

  if (Array.isArray(schema.enum) && schema.enum.includes(null)) schema.nullable = true;
  // OpenAPI 3.0.3: `nullable` does not widen an `enum`; a null value must be listed to be valid.
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  if (schema.nullable === false) delete schema.nullable;

  for (const key of Object.keys(schema)) {
    if (!OPENAPI_30_KEYWORDS.has(key) && !key.startsWith('x-')) delete schema[key];
  }

  // A union left with one branch is that branch.
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const branches = schema[combinator];
    if (Array.isArray(branches) && branches.length === 1 && Object.keys(schema).length === 1) return branches[0] as JsonObject;
  }
  // `nullable` admits null to the schema's `type` only: a null must still pass its `oneOf`, whose
  // branches, constraining an object's properties, all match it, so `oneOf` would refuse it. A
  // nullable schema with a `oneOf` (a markup: one rule per kind) is therefore the schema, or null.
  if (schema.nullable === true && Array.isArray(schema.oneOf)) {
    const { nullable: _nullable, ...object } = schema;
    return { anyOf: [object, { ...NULL_ONLY }] };
  }
  return schema;
}

/** Null and nothing else, as OpenAPI 3.0 can say it (`nullable` needs a `type` beside it, validators insist). */
const NULL_ONLY: JsonObject = { type: 'object', nullable: true, enum: [null] };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
