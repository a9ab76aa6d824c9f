import type { SignInRefusal } from './id-token-claims'

/**
 * What the sign-in page says when the identity provider's sign-in was refused (`/login?signInError=<reason>`).
 * Only the reason travels in the address, never the provider's or the token's text, so a crafted link cannot
 * make the page say anything else; the details are in the audit log and the server log.
 */
const MESSAGES: Record<SignInRefusal, string> = {
  'provider-error': 'The identity provider refused the sign-in. Try again; if it keeps failing, the audit log has the provider’s answer.',
  'provider-unreachable': 'The identity provider did not answer. Try again in a moment.',
  state: 'This sign-in was not started in this browser, was already used, or took more than ten minutes. Start again.',
  issuer: 'The answer came from another identity provider than the one configured. The sign-in was refused.',
  audience: 'The identity provider issued the sign-in for another application. The sign-in was refused.',
  expired: 'The identity provider’s answer had expired (are the clocks in step?). Try again.',
  'not-yet-valid': 'The identity provider’s answer is dated in the future (are the clocks in step?). Try again.',
  nonce: 'The identity provider’s answer does not belong to this sign-in. The sign-in was refused.',
  signature: 'The identity provider’s answer is not signed by its published keys. The sign-in was refused.',
  malformed: 'The identity provider’s answer could not be read. The sign-in was refused.',
  'no-role': 'You are signed in at the identity provider but have no role in Mirrorboard. Ask an administrator to add your group to the roles file.',
}

export function signInErrorMessage(reason: string | undefined): string | null {
  return reason !== undefined && Object.hasOwn(MESSAGES, reason) ? MESSAGES[reason as SignInRefusal] : null
}
