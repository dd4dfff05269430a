/** Operator-supplied daily exchange rates (`admin fx put --file F`). */

import * as z from 'zod/mini';
import { isCalendarDate } from '../domain/revenue-figures.js';
import { currencySchema } from './common.js';
import { define } from './define.js';

export const exchangeRatesSchema = /* @__PURE__ */ define(() =>
  z
    .array(
      z.strictObject({
        date: z.string().check(z.refine(isCalendarDate, 'must be a date as YYYY-MM-DD')),
        from: currencySchema,
        to: currencySchema,
        /** Units of `to` for one unit of `from`. */
        rate: z.number().check(z.positive()),
      }),
    )
    .check(z.minLength(1), z.maxLength(100_000)),
);
