import { BadUserInputError } from '../errors/index.js';
import type { TenantDoc } from './tenant.js';

/** How long the replaced secret keeps signing when rotateWebhookSecret is given no grace: a day. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;
/** The longest grace: a leaked secret must not stay valid for long after it was replaced. */
export const MAX_GRACE_PERIOD_SECONDS = 7 * 86_400;

/** The fields of the tenant record that say which secrets sign a delivery. */
export type SigningState = Pick<TenantDoc, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'>;

/**
 * When the secret being replaced stops signing, or null for no grace (0). Throws BadUserInputError
 * naming `gracePeriodSeconds` when it is not a whole number of seconds from 0 to 7 days.
 */
export function previousSecretExpiry(now: Date, gracePeriodSeconds: number): Date | null {
  if (!Number.isInteger(gracePeriodSeconds) || gracePeriodSeconds < 0 || gracePeriodSeconds > MAX_GRACE_PERIOD_SECONDS) {
    throw new BadUserInputError(
      `gracePeriodSeconds must be a whole number of seconds from 0 (no grace) to ${MAX_GRACE_PERIOD_SECONDS} (7 days), got ${gracePeriodSeconds}`,
      'gracePeriodSeconds',
    );
  }
  return gracePeriodSeconds === 0 ? null : new Date(now.getTime() + gracePeriodSeconds * 1000);
}

/** When the previous secret stops signing, or null when there is none still valid at `now`. */
export function previousSecretExpiresAt(tenant: SigningState, now: Date): Date | null {
  const expiresAt = tenant.previousWebhookSecretExpiresAt;
  if (!tenant.previousWebhookSecret || !expiresAt) return null;
  // Compared with now rather than left to a purge: the record keeps an expired secret until the next rotation or revoke.
  return expiresAt.getTime() > now.getTime() ? expiresAt : null;
}

/** The secrets a delivery made at `now` is signed with, newest first: the current one, and the previous during its grace. */
export function signingSecrets(tenant: SigningState, now: Date): string[] {
  return previousSecretExpiresAt(tenant, now) ? [tenant.webhookSecret, tenant.previousWebhookSecret!] : [tenant.webhookSecret];
}
