/** Operator-defined segments (`admin segments put --app A --file F`): rules over what the profile knows. */
import * as z from 'zod/mini';
import { uniqueIds } from './common.js';
import { define } from './define.js';

export const SEGMENT_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'contains',
  'exists',
  'not_exists',
] as const;

/** Fields a condition can read; see lib/domain/segments.ts for their meaning. */
export const SEGMENT_FIELD_PATTERN =
  /^((attributes|custom_properties)\.[A-Za-z_][A-Za-z0-9_]{0,63}|counters\.(total_sessions|order_count|conversion_count|features_used)|subscription\.status|days_since_(first|last)_seen|attribution\.network)$/;

const scalar = /* @__PURE__ */ define(() => z.union([z.string().check(z.maxLength(512)), z.number(), z.boolean()]));

export const segmentConditionSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      field: z.string().check(z.regex(SEGMENT_FIELD_PATTERN, 'is not a segment field (see docs/api.md)')),
      op: z.enum(SEGMENT_OPERATORS),
      value: z.optional(z.union([scalar, z.array(scalar).check(z.maxLength(100))])),
    })
    .check(
      z.superRefine((condition, ctx) => {
        const needsValue = !['exists', 'not_exists'].includes(condition.op);
        if (needsValue && condition.value === undefined)
          ctx.addIssue({ code: 'custom', path: ['value'], message: `op ${condition.op} needs a value` });
        if (condition.op === 'in' && !Array.isArray(condition.value))
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'op in needs an array' });
        if (['gt', 'gte', 'lt', 'lte'].includes(condition.op) && typeof condition.value !== 'number') {
          ctx.addIssue({ code: 'custom', path: ['value'], message: `op ${condition.op} needs a number` });
        }
      }),
    ),
);
export type SegmentCondition = z.infer<typeof segmentConditionSchema>;

export const BUILT_IN_SEGMENTS = [
  'new_user',
  'active_7d',
  'dormant_30d',
  'trialing',
  'paying',
  'churned',
  'never_subscribed',
] as const;
export type BuiltInSegment = (typeof BUILT_IN_SEGMENTS)[number];

export const segmentSchema = /* @__PURE__ */ define(() =>
  z
    .strictObject({
      id: z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'must be 1-64 lower-case letters, digits or _')),
      name: z.string().check(z.minLength(1), z.maxLength(200)),
      description: z.optional(z.string().check(z.maxLength(1000))),
      match: z._default(z.enum(['all', 'any']), 'all'),
      conditions: z.array(segmentConditionSchema).check(z.minLength(1), z.maxLength(20)),
    })
    .check(
      z.refine((segment) => !(BUILT_IN_SEGMENTS as readonly string[]).includes(segment.id), {
        path: ['id'],
        message: 'is the id of a built-in segment',
      }),
    ),
);
export type Segment = z.infer<typeof segmentSchema>;

export const segmentCatalogueSchema = /* @__PURE__ */ define(() =>
  z.array(segmentSchema).check(z.maxLength(100), uniqueIds<Segment>('segment')),
);
