/** Stable endpoint names: keys for call counts, rate limits and fault targeting. */
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
