/**
 * The one error type selector parsing throws. The HTTP layer turns it into a
 * 400 BadRequest. It carries a stable `code` (and `kind`) because class
 * identity does not survive a structured clone to or from a worker thread,
 * mirroring the storage errors.
 */
export type SelectorKind = 'label' | 'field';

export class SelectorError extends Error {
  readonly code = 'InvalidSelector' as const;
  override readonly name = 'SelectorError';

  constructor(
    readonly kind: SelectorKind,
    message: string,
  ) {
    super(message);
  }
}
