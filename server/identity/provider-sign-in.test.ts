import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadRolesFile, openProviderSignIn } from './provider-sign-in'

const dir = mkdtempSync(path.join(tmpdir(), 'mirrorboard-roles-'))
const config = { issuer: 'https://id.example.com', clientId: 'mb', publicUrl: 'https://mb.example.com', scopes: ['openid'], groupsClaim: 'groups', providerName: 'Example' }

describe('loadRolesFile', () => {
  it('stops the start naming the variable, the file, the line and the mistake', async () => {
    const file = path.join(dir, 'roles.yaml')
    writeFileSync(file, 'rules:\n  - group: dr-eu\n    role: operater\n')
    await expect(loadRolesFile(file)).rejects.toThrow(`MIRRORBOARD_ROLES_FILE ${file}, line 3: unknown role "operater" (viewer, operator or admin)`)
    await expect(loadRolesFile(path.join(dir, 'missing.yaml'))).rejects.toThrow(/^MIRRORBOARD_ROLES_FILE: cannot read .*missing\.yaml/)
    writeFileSync(file, 'rules:\n  - group: dr-eu\n    role: operator\n')
    expect(await loadRolesFile(file)).toHaveLength(1)
    expect(await loadRolesFile(undefined)).toEqual([])
  })
})

describe('openProviderSignIn', () => {
  it('reads the client secret from its file, and refuses an empty or missing one', async () => {
    const secret = path.join(dir, 'secret')
    writeFileSync(secret, '  s3cret\n')
    expect((await openProviderSignIn({ ...config, clientSecret: { file: secret } })).client.settings.clientSecret).toBe('s3cret')
    writeFileSync(secret, '\n')
    await expect(openProviderSignIn({ ...config, clientSecret: { file: secret } })).rejects.toThrow(`MIRRORBOARD_OIDC_CLIENT_SECRET_FILE: ${secret} is empty`)
    await expect(openProviderSignIn({ ...config, clientSecret: { file: path.join(dir, 'nope') } })).rejects.toThrow(/^MIRRORBOARD_OIDC_CLIENT_SECRET_FILE: cannot read/)
    expect((await openProviderSignIn({ ...config, clientSecret: null })).client.settings.clientSecret).toBeUndefined()
  })
})
