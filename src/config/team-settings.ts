/**
 * The settings every machine of a team must read a synced folder with alike, because they change what a push
 * sends for the same bytes, or whether it may go over a colleague's edit (the shared state publishes them:
 * sync/state/team.ts). A machine follows the
 * team's published value of each one its configuration does not give; one it gives (in the file, or by its
 * variable) must agree.
 */
export const TEAM_SETTINGS = ['layout', 'markdown.dialect', 'links', 'site.basePath', 'merge.webEdits'] as const;
export type TeamSetting = (typeof TEAM_SETTINGS)[number];

/** The team settings `given` (the file's object with the variables laid over it) sets; `markdown.dialect: "auto"` sets nothing. */
export function explicitTeamSettings(given: unknown): TeamSetting[] {
  return TEAM_SETTINGS.filter((setting) => {
    const value = setting.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), given);
    return value !== undefined && !(setting === 'markdown.dialect' && value === 'auto');
  });
}
