/** The JSON form of an object, as served and stored: plain parsed JSON. */
export type JsonObject = Record<string, unknown>;
