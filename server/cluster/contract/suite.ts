import 'server-only'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { supports, type Capability, type ContractFactory, type ContractFixture } from './contract'

export interface ContractSuite {
  /** The implementation under test, opened once per suite (every behaviour works on a topic of its own). */
  readonly fixture: ContractFixture
  /** A behaviour that needs `capabilities`; without one, the declaration of the deviation is what is checked. */
  itWith(capabilities: Capability[], name: string, body: () => Promise<void>): void
}

/** Call inside a suite's `describe`: opens the factory's fixture before its behaviours and closes it after. */
export function contractSuite(factory: ContractFactory): ContractSuite {
  let opened: ContractFixture | undefined
  beforeAll(async () => {
    opened = await factory.open()
  }, 60_000)
  afterAll(async () => {
    await opened?.close()
  })
  return {
    get fixture() {
      if (!opened) throw new Error(`the ${factory.name} contract fixture is not open`)
      return opened
    },
    itWith(capabilities, name, body) {
      const missing = capabilities.filter((capability) => !supports(factory, capability))
      if (missing.length === 0) it(name, body)
      else it(`declares why it cannot ${missing.join(', ')} (${name})`, () => missing.forEach((c) => expect(factory.deviations[c]?.trim()).toBeTruthy()))
    },
  }
}
