/**
 * The contract's fourteen endpoints by stable name (section 4). The client, the queue and the emulator
 * all key call counts, rate limits and faults on these names, so they live in one place.
 */
export const ENDPOINTS = [
  'listWorkspaces',
  'getWorkspace',
  'listNodes',
  'getNode',
  'queryNodeByUrl',
  'createDocument',
  'deleteDocument',
  'readBlocks',
  'overwriteContent',
  'appendText',
  'addMembers',
  'updateMember',
  'removeMember',
  'searchDocs',
] as const;

export type EndpointName = (typeof ENDPOINTS)[number];

export const isEndpointName = (value: string): value is EndpointName => (ENDPOINTS as readonly string[]).includes(value);
