/**
 * The error every patch algorithm throws. `code` is the HTTP status the
 * original answers with for that failure; `index.ts` turns it into the
 * Status a client sees (for 422 the original hides this message behind a
 * generic one, so the detail here is for logs and tests).
 */

/** 400 malformed patch, 413 too big, 422 patch does not apply, 500 what the original reports as an unclassified error. */
export type PatchErrorCode = 400 | 413 | 422 | 500;

export class PatchError extends Error {
  constructor(
    readonly code: PatchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

export const badPatch = (message: string): PatchError => new PatchError(400, message);
export const unprocessablePatch = (message: string): PatchError => new PatchError(422, message);
export const unclassifiedPatchError = (message: string): PatchError => new PatchError(500, message);
