/**
 * RevenueCat's subscriber attributes (lib/domain/revenuecat-attributes.ts) kept as the user's
 * custom properties, all or none, as the attributes endpoint takes them. Those riding in a
 * receipts body are kept by the same rules in lib/services/revenuecat.ts (keepReceiptAttributes),
 * which reports what it cannot keep instead of refusing: a refused receipt is a lost purchase.
 */
import { AppError } from '../core/errors.js';
import { mergeProfileMaps } from '../data/profiles.js';
import { type AttributeError, mergeAttributes } from '../domain/revenuecat-attributes.js';
import { ATTRIBUTE_PATH, type RevenueCatAttributesBody } from '../schemas/revenuecat.js';

/**
 * POST /v1/subscribers/{app_user_id}/attributes: the attributes merged into the user's custom
 * properties (the user recorded if new). One that cannot be kept refuses the request, each such
 * attribute named, and nothing is written: a refused request never changes data.
 */
export async function setRevenueCatAttributes(
  appId: string,
  userId: string,
  { attributes }: RevenueCatAttributesBody,
): Promise<void> {
  await mergeProfileMaps(
    appId,
    userId,
    (current) => {
      const { properties, errors } = mergeAttributes(current.custom_properties, attributes);
      if (errors.length > 0) throw attributesNotKept(errors);
      return { ...current, custom_properties: properties };
    },
    new Date(),
  );
}

const attributesNotKept = (errors: AttributeError[]) =>
  new AppError('INVALID_PARAMETER', `${errors.length} of the attributes cannot be kept; none was`, {
    details: errors.map((error) => ({ path: `${ATTRIBUTE_PATH}${error.key_name}`, message: error.message })),
  });
