// Configuration: schema, loading (file → env → validate), token sources. Re-exports only.
export { ConfigSchema, type ConfigInput, type TokenSourceConfig } from './schema.js';
export { CONFIG_FILE_NAME, loadConfig, type Config, type LoadedConfig } from './load.js';
export { ENV_OPTIONS, type Env } from './env.js';
export { homeFolder } from './home.js';
export { createSecretSource, createTokenSource, type TokenSource } from './token.js';
export { configJsonSchema, renderConfigJsonSchema } from './json-schema.js';
export { type TeamSetting } from './team-settings.js';
