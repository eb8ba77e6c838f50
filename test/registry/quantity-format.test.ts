/**
 * Quantities printed as the original's Quantity.String(): canonical
 * decimal (largest multiple-of-3 exponent keeping a whole mantissa), binary
 * only for whole values of at least 1Ki, exponent form kept, and sums taking
 * the format of their first non-zero operand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addQuantities, formatQuantity, quantityMilliValue, quantityValue, toQuantity } from '../../src/registry/validation/quantity-format.ts';

const canon = (s: string): string => formatQuantity(toQuantity(s)!);

test('canonical text', () => {
  const cases: Array<[string, string]> = [
    ['0', '0'],
    ['0Mi', '0'],
    ['1000', '1k'],
    ['1200', '1200'],
    ['1500m', '1500m'],
    ['2000m', '2'],
    ['0.5', '500m'],
    ['100m', '100m'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['512', '512'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['1G', '1G'],
    ['-2k', '-2k'],
    ['1n', '1n'],
    ['3.5', '3500m'],
  ];
  for (const [input, want] of cases) assert.equal(canon(input), want, input);
});

test('sums keep the first format, a zero takes the other', () => {
  const sum = (a: string, b: string): string => formatQuantity(addQuantities(toQuantity(a)!, toQuantity(b)!));
  assert.equal(sum('1Gi', '1Gi'), '2Gi');
  assert.equal(sum('0', '1Gi'), '1Gi');
  assert.equal(sum('50Gi', '2Gi'), '52Gi');
  assert.equal(sum('1', '100m'), '1100m');
  assert.equal(sum('1G', '1Gi'), '2073741824');
});

test('Value and MilliValue round up', () => {
  assert.equal(quantityValue(toQuantity('1500m')!), 2n);
  assert.equal(quantityMilliValue(toQuantity('1n')!), 1n);
  assert.equal(quantityValue(toQuantity('2Ki')!), 2048n);
});

test('huge and tiny exponents are capped and rounded as the original, never expanded (no request can stall a thread)', async () => {
  const { parseQuantity } = await import('../../src/registry/validation/quantity.ts');
  const max = (2n ** 63n - 1n) * 10n ** 9n;
  assert.equal(parseQuantity('1e999999999'), max);
  assert.equal(parseQuantity('-1e999999999'), -max);
  assert.equal(parseQuantity('9223372036854775808'), max);
  assert.equal(parseQuantity('1e-999999999'), 1n);
  assert.equal(parseQuantity(`0.${'0'.repeat(100000)}1`), 1n);
  assert.equal(parseQuantity(`1${'0'.repeat(100000)}`), max);
  assert.equal(parseQuantity('12e-10'), 2n);
  assert.equal(parseQuantity('0.000'), 0n);
  assert.equal(formatQuantity(toQuantity('1e999999999')!), '9223372036854775807');
});
