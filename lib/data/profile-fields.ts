/** The fields a user's profile item is created with, whichever write creates it (a report, a grant). */
import { profileCustomerAttributes } from './customer-index.js';

/** Set only where absent: the first write creates the profile with them, later writes leave them (its index key never changes). */
export const newProfileFields = (appId: string, userId: string, now: Date): Record<string, string> => ({
  type: 'user_profile',
  app_id: appId,
  user_id: userId,
  first_seen: now.toISOString(),
  ...profileCustomerAttributes(appId, userId),
});
