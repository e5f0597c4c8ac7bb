/** The flags of `connections` (help text in one place). */
import { CONNECTION_DEFAULTS } from '#functions/core/connections/connection-entry.js';
import type { FlagSpecs } from '../command.js';
import { DEFAULT_DATA_DIR } from './shared-flags.js';

export const connectionsFlags = {
  connections: {
    type: 'string',
    value: 'FILE',
    description: 'The registry file (JSON, docs/connections.md).',
    defaultHelp: '<data-dir>/connections.json',
  },
  'data-dir': {
    type: 'string',
    value: 'DIR',
    description: 'Data directory of the local runtime (where the default registry file lives).',
    defaultHelp: DEFAULT_DATA_DIR,
  },
  table: {
    type: 'string',
    value: 'NAME',
    description:
      'The DynamoDB registry table instead of a file (AWS credentials from the usual AWS settings).',
  },
  region: {
    type: 'string',
    value: 'REGION',
    description: 'AWS region of --table and of Secrets Manager references.',
    defaultHelp: 'AWS_REGION',
  },
  endpoint: {
    type: 'string',
    value: 'URL',
    description: 'DynamoDB endpoint of --table (e.g. a local dynalite).',
  },
  name: { type: 'string', value: 'NAME', description: 'add: the connection name (letters, digits, _ . -).' },
  variant: {
    type: 'string',
    value: 'sk|cz',
    description: 'add: service variant.',
    defaultHelp: CONNECTION_DEFAULTS.variant,
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    description: 'add: service base URL (https; required for sk).',
  },
  'auth-url': { type: 'string', value: 'URL', description: 'add: OAuth authority (for client credentials).' },
  'credentials-secret': {
    type: 'string',
    value: 'REF',
    description:
      'add: env:NAME, ssm:/PARAMETER, or a Secrets Manager ARN or name (never the secret itself; see --seal-credentials).',
  },
  collections: {
    type: 'string',
    value: 'A,B',
    description: 'add: collections to poll (case-insensitive).',
    defaultHelp: "the variant's document types and BusinessPartners",
  },
  'poll-interval': {
    type: 'string',
    value: '60s',
    description: 'add: time between polls (at least 60s).',
    defaultHelp: `${CONNECTION_DEFAULTS.pollIntervalSeconds}s`,
  },
  paused: { type: 'boolean', description: 'add: registered paused (not polled until resume).' },
  'rate-limit': {
    type: 'string',
    value: 'N',
    description: 'add: requests per second to the service, for all of its callers.',
    defaultHelp: String(CONNECTION_DEFAULTS.rateLimit.requestsPerSecond),
  },
  burst: {
    type: 'string',
    value: 'N',
    description: 'add: token bucket size.',
    defaultHelp: String(CONNECTION_DEFAULTS.rateLimit.burst),
  },
  action: {
    type: 'string',
    value: 'NAME=VALUE',
    multiple: true,
    description: 'add: an action setting for this connection, e.g. ACTIONS_ISDOC_PDF=true (repeatable).',
  },
  'from-json': {
    type: 'string',
    value: 'FILE',
    description: 'add: the entry as JSON (flags given as well win).',
  },
  'seal-credentials': {
    type: 'string',
    value: 'FILE',
    description:
      'add, with --table: seal the credentials JSON of FILE into the entry (sealed:…) under the deployment’s data key; instead of --credentials-secret.',
  },
  'sealing-keys': {
    type: 'string',
    value: 'PATH',
    description:
      'add: SSM path of the deployment’s sealing keys, /accounting-events-<stage>/sealing-keys (the stack output SealingKeysPath).',
  },
  'sealing-key-id': {
    type: 'string',
    value: 'ID',
    description:
      'add: the data key to seal with; a new id makes a new key (rotation), old values still open.',
    defaultHelp: 'k1',
  },
  'skip-secret-check': {
    type: 'boolean',
    description: 'add: do not read the secret now (it will be created later).',
  },
  all: { type: 'boolean', description: "test: every collection of the variant, not only the connection's." },
  json: { type: 'boolean', description: 'list, test: JSON instead of a table.' },
  wide: { type: 'boolean', description: 'list: every setting whole, however wide (cut to 80 columns).' },
} as const satisfies FlagSpecs;
