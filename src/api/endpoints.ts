import type { EndpointName } from '../model/endpoints.js';

/** Stable endpoint names: keys for call accounting and per-endpoint rate limits (the emulator uses the same). */
export type Endpoint = EndpointName;

/**
 * Whether a call may be sent again after an ambiguous failure (reset, timeout, 5xx after sending).
 * Repeating a create, an append or an add-members could duplicate a document, text or a member,
 * so those report OutcomeUnknownError instead and the caller reconciles.
 */
export const REPEATABLE: Readonly<Record<Endpoint, boolean>> = {
  listWorkspaces: true,
  getWorkspace: true,
  listNodes: true,
  getNode: true,
  queryNodeByUrl: true,
  createDocument: false,
  deleteDocument: true,
  readBlocks: true,
  overwriteContent: true,
  appendText: false,
  addMembers: false,
  updateMember: true,
  removeMember: true,
  searchDocs: true,
};
