/**
 * Errors the codec throws, each with the HTTP status a handler should answer
 * with, so the wiring code does not have to guess.
 */

/** Bytes that are not a valid enveloped object: wrong prefix, truncated, bad field. Answer 400. */
export class ProtobufDecodeError extends Error {
  readonly status = 400;
  readonly reason = 'BadRequest';
  constructor(message: string) {
    super(`protobuf: ${message}`);
    this.name = 'ProtobufDecodeError';
  }
}

/**
 * The kind has no Protobuf form (extension-defined or unknown types). Answer
 * 406 when it was asked for in Accept, 415 when a request body used it.
 */
export class ProtobufUnsupportedError extends Error {
  readonly kind: string;
  constructor(kind: string, message = `kind ${kind} has no protobuf encoding`) {
    super(`protobuf: ${message}`);
    this.name = 'ProtobufUnsupportedError';
    this.kind = kind;
  }
}

/** A JSON object that does not fit its type (a string where a number belongs, ...). Server data: answer 500. */
export class ProtobufEncodeError extends Error {
  /** Where in the object, such as `spec.containers.ports` (list indexes are not tracked). */
  readonly path: string;
  readonly detail: string;
  constructor(path: string, detail: string) {
    super(`protobuf: ${path === '' ? '(object)' : path}: ${detail}`);
    this.name = 'ProtobufEncodeError';
    this.path = path;
    this.detail = detail;
  }
}
