import { buttonClass } from '@/components/ui/button-class'

/**
 * "Sign in with <provider>": a plain link to the API's redirect (GET /api/v1/auth/oidc/login), not a client
 * navigation, since the browser leaves for the identity provider and comes back with a new page.
 */
export function ProviderSignIn({ provider, next, primary }: { provider: string; next: string; primary: boolean }) {
  const href = `/api/v1/auth/oidc/login${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`
  return (
    <a href={href} className={`${buttonClass(primary ? 'primary' : 'secondary', 'md')} w-full`}>
      Sign in with {provider}
    </a>
  )
}
