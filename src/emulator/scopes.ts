/** Permission scopes of contract section 5 (plus the member scope the real service uses). */
export const Scope = {
  wikiRead: 'Wiki.Node.Read',
  fileRead: 'Storage.File.Read',
  fileWrite: 'Storage.File.Write',
  contactRead: 'Contact.User.Read',
  docRead: 'Document.WorkspaceDocument.Read',
  docWrite: 'Document.WorkspaceDocument.Write',
} as const;
export type Scope = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly Scope[] = Object.values(Scope);
export const READ_SCOPES: readonly Scope[] = [Scope.wikiRead, Scope.fileRead, Scope.docRead];
