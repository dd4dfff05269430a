/** Operator-supplied daily exchange rates (`admin fx put --file F`). */
import * as z from 'zod';
import { isCalendarDate } from '../domain/revenue.js';
import { currencySchema } from './common.js';

export const exchangeRatesSchema = z
  .array(
    z
      .object({
        date: z.string().refine(isCalendarDate, 'must be a date as YYYY-MM-DD'),
        from: currencySchema,
        to: currencySchema,
        /** Units of `to` for one unit of `from`. */
        rate: z.number().positive().finite(),
      })
      .strict(),
  )
  .min(1)
  .max(100_000);
