import 'server-only'
import { kipWorkedExample } from './kip-worked-example'
import { plannedSwitchover } from './planned-switchover'
import { rehearseBeforeYouNeedIt } from './rehearse-before-you-need-it'
import type { ScenarioDefinition } from './scenario'
import { sourceLost } from './source-lost'
import { uncleanElection } from './unclean-election'

/** Every scenario the demo offers, in the order the control room lists them. */
export const SCENARIOS: readonly ScenarioDefinition[] = [kipWorkedExample, sourceLost, plannedSwitchover, uncleanElection, rehearseBeforeYouNeedIt]
