import { AlertList, AlertsQuery, CreateReceiverRequest, CreateSilenceRequest, Receiver, ReceiverList, ReceiverParams, ReceiverTestResponse, Silence, SilenceList, SilenceParams } from './alerts'

/**
 * The alerting endpoints of the catalog (lib/api/endpoints.ts lists them in SERVED_ENDPOINTS, where each is
 * checked to be an `Endpoint`; this file imports nothing of it, so the two do not import each other): alerts
 * of the built-in rules, receivers and silences. Reading needs a viewer; changes an operator, all audited.
 */

const v1 = '/api/v1'
const EMPTY = { kind: 'empty' } as const

export const alertEndpoints = {
  listAlerts: {
    operationId: 'listAlerts',
    method: 'GET',
    path: `${v1}/alerts`,
    role: 'viewer',
    summary: 'Firing and resolved alerts of the built-in rules, firing first, newest first',
    query: AlertsQuery,
    status: 200,
    response: AlertList,
  },
  listReceivers: {
    operationId: 'listAlertReceivers',
    method: 'GET',
    path: `${v1}/alerts/receivers`,
    role: 'viewer',
    summary: 'Where alerts are delivered, with URLs redacted and each receiver\'s last delivery',
    status: 200,
    response: ReceiverList,
  },
  createReceiver: {
    operationId: 'createAlertReceiver',
    method: 'POST',
    path: `${v1}/alerts/receivers`,
    role: 'operator',
    summary: 'Add a receiver (webhook, alertmanager or slack); it is sent the alerts firing now',
    audit: 'alert.receiver.create',
    body: CreateReceiverRequest,
    status: 201,
    response: Receiver,
    errors: ['CONFLICT'],
  },
  deleteReceiver: {
    operationId: 'deleteAlertReceiver',
    method: 'DELETE',
    path: `${v1}/alerts/receivers/{name}`,
    role: 'operator',
    summary: 'Remove a receiver',
    audit: 'alert.receiver.delete',
    params: ReceiverParams,
    status: 204,
    response: EMPTY,
    errors: ['NOT_FOUND'],
  },
  testReceiver: {
    operationId: 'testAlertReceiver',
    method: 'POST',
    path: `${v1}/alerts/receivers/{name}/test`,
    role: 'operator',
    summary: 'Send a test alert to a receiver now (one attempt) and answer with the result',
    audit: 'alert.receiver.test',
    params: ReceiverParams,
    status: 200,
    response: ReceiverTestResponse,
    errors: ['NOT_FOUND'],
  },
  listSilences: {
    operationId: 'listAlertSilences',
    method: 'GET',
    path: `${v1}/alerts/silences`,
    role: 'viewer',
    summary: 'Silences that have not ended, soonest end first',
    status: 200,
    response: SilenceList,
  },
  createSilence: {
    operationId: 'createAlertSilence',
    method: 'POST',
    path: `${v1}/alerts/silences`,
    role: 'operator',
    summary: "Keep a mirror's alerts from being delivered until a time",
    audit: 'alert.silence.create',
    body: CreateSilenceRequest,
    status: 201,
    response: Silence,
  },
  deleteSilence: {
    operationId: 'deleteAlertSilence',
    method: 'DELETE',
    path: `${v1}/alerts/silences/{id}`,
    role: 'operator',
    summary: 'End a silence now',
    audit: 'alert.silence.delete',
    params: SilenceParams,
    status: 204,
    response: EMPTY,
    errors: ['NOT_FOUND'],
  },
} as const
