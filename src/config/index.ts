// Configuration: schema, loading (file → env → validate), token sources. Re-exports only.
export { ConfigSchema, TokenSourceSchema, type ConfigInput, type LogLevel, type ParsedConfig, type TokenSourceConfig } from './schema.js';
export { CONFIG_FILE_NAME, loadConfig, type Config, type LoadConfigOptions, type LoadedConfig } from './load.js';
export { ENV_OPTIONS, envOverrides, type Env, type EnvOverrides } from './env.js';
export { createSecretSource, createTokenSource, type SecretWords, type TokenSource, type TokenSourceOptions } from './token.js';
export { configJsonSchema, renderConfigJsonSchema } from './json-schema.js';
export { locateJsonError, type JsonErrorLocation } from './json-error.js';
