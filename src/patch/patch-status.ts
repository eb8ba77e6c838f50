/**
 * PatchError to the Status a client sees, as the original's patch handler
 * reports each kind of failure.
 */
import { errors, StatusError } from '../api/status.ts';
import type { PatchError } from './patch-error.ts';

/** What the original says for any patch that does not apply; the specific reason stays server-side. */
export const PATCH_NOT_APPLICABLE_MESSAGE = 'the server rejected our request due to an error in our request';

export function patchErrorStatus(e: PatchError): StatusError {
  let status: StatusError;
  switch (e.code) {
    case 400:
      status = errors.badRequest(e.message);
      break;
    case 413:
      status = errors.tooLarge(e.message);
      break;
    case 422:
      // The original builds this with NewGenericServerResponse: a fixed
      // message and empty details, so `kubectl` prints the fixed text.
      status = new StatusError(422, 'Invalid', PATCH_NOT_APPLICABLE_MESSAGE, {});
      break;
    case 500:
      // Errors the original does not classify reach the client with reason
      // Unknown (empty) and the bare message.
      status = new StatusError(500, '', e.message);
      break;
  }
  // Kept for logs: the 422 text above hides it from the client.
  status.cause = e;
  return status;
}

/**
 * The patched document does not decode as an object (a JSON patch replaced
 * the root with a list, a merge patch was a list): the original's 422 from
 * decoding the result, with the same field path and wording.
 */
export function notAnObjectStatus(result: unknown): StatusError {
  const word = Array.isArray(result) ? 'array' : result === null ? 'null' : typeof result === 'string' ? 'string' : typeof result === 'boolean' ? 'bool' : 'number';
  return errors.invalid('', '', '', [
    {
      reason: 'FieldValueInvalid',
      field: 'patch',
      message: `Invalid value: ${JSON.stringify(JSON.stringify(result))}: json: cannot unmarshal ${word} into Go value of type map[string]interface {}`,
    },
  ]);
}
