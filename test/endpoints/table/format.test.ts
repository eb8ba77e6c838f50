/** Cell formatting helpers against the original's: HumanDuration boundaries, label and selector text. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { boolPtr, containerCells, formatLabelSelector, formatLabels, humanDuration, intOrString, labelSelectorText } from '../../../src/endpoints/table/format.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration', () => {
  it('matches duration.HumanDuration at every boundary', () => {
    const cases: [number, string][] = [
      [-2500, '<invalid>'],
      [-1500, '0s'],
      [-500, '0s'],
      [0, '0s'],
      [1999, '1s'],
      [119 * s, '119s'],
      [120 * s, '2m'],
      [121 * s, '2m1s'],
      [599 * s, '9m59s'],
      [10 * m, '10m'],
      [179 * m + 59 * s, '179m'],
      [3 * h, '3h'],
      [7 * h + 59 * m, '7h59m'],
      [8 * h, '8h'],
      [47 * h + 59 * m, '47h'],
      [48 * h, '2d'],
      [7 * d + 23 * h, '7d23h'],
      [8 * d, '8d'],
      [729 * d, '729d'],
      [730 * d, '2y'],
      [731 * d, '2y1d'],
      [8 * 365 * d - 1 * d, '7y364d'],
      [8 * 365 * d, '8y'],
      [20 * 365 * d, '20y'],
    ];
    for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
  });
});

describe('labels and selectors', () => {
  it('formats label maps sorted by key', () => {
    assert.equal(formatLabels({ tier: 'fe', app: 'web' }), 'app=web,tier=fe');
    assert.equal(formatLabels({}), '<none>');
    assert.equal(formatLabels(undefined), '<none>');
  });

  it('formats label selectors as metav1.FormatLabelSelector does', () => {
    assert.equal(formatLabelSelector({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] }), 'a=1,b=2,c');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['qa', 'dev'] }] }), 'env notin (dev,qa)');
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector(null), '<none>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'x', operator: 'Nope' }] }), '<error>');
    assert.equal(labelSelectorText({}), '');
    assert.equal(labelSelectorText({ matchLabels: { 'bad key!': 'x' } }), '<invalid>');
  });

  it('lays out containers and prints small values', () => {
    assert.deepEqual(containerCells([{ name: 'a', image: 'i:1' }, { name: 'b' }]), ['a,b', 'i:1,']);
    assert.deepEqual(containerCells(undefined), ['', '']);
    assert.equal(intOrString(3), '3');
    assert.equal(intOrString('50%'), '50%');
    assert.deepEqual([boolPtr(true), boolPtr(false), boolPtr(undefined)], ['True', 'False', '<unset>']);
  });
});
