import type { DecisionKind } from '../../sync/decide/types.js';

/** What each decision means, in the words a person would use (JSON keeps the kinds). */
const WORDS: Record<DecisionKind, string> = {
  none: 'nothing to do',
  held: 'held',
  create: 'new file: a document will be created',
  link: 'linked to its existing document',
  push: 'your edits will be pushed',
  pull: 'edits from the knowledge base will be pulled into the file',
  merge: 'edits on both sides will be merged',
  conflict: 'changed differently on both sides: a conflict copy will be written',
  'delete-remote': 'deleted here: its document will be deleted',
  'trash-local': "deleted in the knowledge base: the file will move to kbsync's trash",
  restore: 'deleted here but edited in the knowledge base: the file will come back',
  recreate: 'deleted in the knowledge base but edited here: the document will be created again',
  forget: 'gone on both sides: the record will be dropped',
  'trash-leftover': "left by an interrupted pull, and deleted in the knowledge base since: the file will move to kbsync's trash",
  rename: 'renamed: the record follows the file',
  move: 'moved: a new document in the new folder, the old one deleted',
  'move-local': 'moved in the knowledge base: the file will follow',
  'new-local': 'new in the knowledge base: it will be pulled',
  'new-local-folder': 'a folder of the knowledge base with no folder here: it will be made here',
};

export const describeDecision = (kind: DecisionKind): string => WORDS[kind];
