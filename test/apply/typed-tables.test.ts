/**
 * The typed walkers (src/apply/typed.ts, compare.ts, merge-values.ts) on the
 * original's own tables, case by case: typed/toset_test.go (ToFieldSet),
 * merge_test.go (Merge), symdiff_test.go (Compare, both ways) and
 * remove_test.go (RemoveItems; ExtractItems is not ported). A few of the
 * original's flow mappings carry a stray closing brace its YAML parser
 * ignores; they are balanced here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareValues } from '../../src/apply/compare.ts';
import { mergeValues } from '../../src/apply/merge-values.ts';
import { removeItems, toFieldSet } from '../../src/apply/typed.ts';
import { equals, type Json } from '../../src/apply/value.ts';
import { yaml } from './support/fixture.ts';
import { setOf } from './support/paths.ts';
import { smdSchema } from './support/smd-schema.ts';

interface Table<R> {
  readonly name: string;
  readonly root: string;
  readonly schema: string;
  readonly rows: readonly R[];
}

const show = (v: Json): string => JSON.stringify(v);

const TO_SET: readonly Table<readonly [string, readonly string[]]>[] = [
  {
    name: 'simple pair',
    root: 'stringPair',
    schema: `types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{"key":"foo","value":1}`, ['.key', '.value']],
      [`{"key":"foo","value":{"a": "b"}}`, ['.key', '.value']],
      [`{"key":"foo","value":null}`, ['.key', '.value']],
      [`{"key":"foo"}`, ['.key']],
      [`{"key":"foo","value":true}`, ['.key', '.value']],
    ],
  },
  {
    name: 'struct grab bag',
    root: 'myStruct',
    schema: `types:
- name: myStruct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
    - name: color
      type:
        map:
          fields:
          - name: R
            type:
              scalar: numeric
          - name: G
            type:
              scalar: numeric
          - name: B
            type:
              scalar: numeric
          elementRelationship: atomic
    - name: arbitraryWavelengthColor
      type:
        map:
          elementType:
            scalar: numeric
          elementRelationship: atomic
    - name: args
      type:
        list:
          elementType:
            map:
              fields:
              - name: key
                type:
                  scalar: string
              - name: value
                type:
                  scalar: string
          elementRelationship: atomic
`,
    rows: [
      [`{"numeric":1}`, ['.numeric']],
      [`{"numeric":3.14159}`, ['.numeric']],
      [`{"string":"aoeu"}`, ['.string']],
      [`{"bool":true}`, ['.bool']],
      [`{"bool":false}`, ['.bool']],
      [`{"setStr":["a","b","c"]}`, ['.setStr[="a"]', '.setStr[="b"]', '.setStr[="c"]']],
      [`{"setStr":["a","b","c","a","b","c","c"]}`, ['.setStr[="a"]', '.setStr[="b"]', '.setStr[="c"]']],
      [`{"setBool":[true,false,true]}`, ['.setBool[=true]', '.setBool[=false]']],
      [`{"setNumeric":[1,2,3,3.14159]}`, ['.setNumeric[=1]', '.setNumeric[=2]', '.setNumeric[=3]', '.setNumeric[=3.14159]']],
      [`{"color":{}}`, ['.color']],
      [`{"color":null}`, ['.color']],
      [`{"color":{"R":255,"G":0,"B":0}}`, ['.color']],
      [`{"arbitraryWavelengthColor":{}}`, ['.arbitraryWavelengthColor']],
      [`{"arbitraryWavelengthColor":null}`, ['.arbitraryWavelengthColor']],
      [`{"arbitraryWavelengthColor":{"IR":255}}`, ['.arbitraryWavelengthColor']],
      [`{"args":[]}`, ['.args']],
      [`{"args":null}`, ['.args']],
      [`{"args":[null]}`, ['.args']],
      [`{"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]}`, ['.args']],
    ],
  },
  {
    name: 'associative list',
    root: 'myRoot',
    schema: `types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myElement
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
`,
    rows: [
      [`{"list":[]}`, []],
      [`{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, ['.list[id=1,key="a"]', '.list[id=1,key="a"].key', '.list[id=1,key="a"].id', '.list[id=1,key="a"].value.a']],
      [`{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}`, ['.list[id=1,key="a"]', '.list[id=2,key="a"]', '.list[id=1,key="b"]', '.list[id=1,key="a"].key', '.list[id=1,key="a"].id', '.list[id=2,key="a"].key', '.list[id=2,key="a"].id', '.list[id=1,key="b"].key', '.list[id=1,key="b"].id']],
      [`{"list":[{"key":"a","id":1,"nv":2},{"key":"a","id":2,"nv":3},{"key":"b","id":1},{"key":"a","id":2,"bv":true}]}`, ['.list[id=1,key="a"]', '.list[id=1,key="a"].key', '.list[id=1,key="a"].id', '.list[id=1,key="a"].nv', '.list[id=2,key="a"]', '.list[id=1,key="b"]', '.list[id=1,key="b"].key', '.list[id=1,key="b"].id']],
      [`{"atomicList":["a","a","a"]}`, ['.atomicList']],
    ],
  },
];

const MERGE: readonly Table<readonly [string, string, string]>[] = [
  {
    name: 'simple pair',
    root: 'stringPair',
    schema: `types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{"key":"foo","value":{}}`, `{"key":"foo","value":1}`, `{"key":"foo","value":1}`],
      [`{"key":"foo","value":{}}`, `{"key":"foo","value":1}`, `{"key":"foo","value":1}`],
      [`{"key":"foo","value":1}`, `{"key":"foo","value":{}}`, `{"key":"foo","value":{}}`],
      [`{"key":"foo","value":null}`, `{"key":"foo","value":{}}`, `{"key":"foo","value":{}}`],
      [`{"key":"foo"}`, `{"value":true}`, `{"key":"foo","value":true}`],
    ],
  },
  {
    name: 'null/empty map',
    root: 'nestedMap',
    schema: `types:
- name: nestedMap
  map:
    fields:
    - name: inner
      type:
        map:
          elementType:
            namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{}`, `{"inner":{}}`, `{"inner":{}}`],
      [`{}`, `{"inner":null}`, `{"inner":null}`],
      [`{"inner":null}`, `{"inner":{}}`, `{"inner":{}}`],
      [`{"inner":{}}`, `{"inner":null}`, `{"inner":null}`],
      [`{"inner":{}}`, `{"inner":{}}`, `{"inner":{}}`],
    ],
  },
  {
    name: 'null/empty struct',
    root: 'nestedStruct',
    schema: `types:
- name: nestedStruct
  map:
    fields:
    - name: inner
      type:
        map:
          fields:
          - name: value
            type:
              namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{}`, `{"inner":{}}`, `{"inner":{}}`],
      [`{}`, `{"inner":null}`, `{"inner":null}`],
      [`{"inner":null}`, `{"inner":{}}`, `{"inner":{}}`],
      [`{"inner":{}}`, `{"inner":null}`, `{"inner":null}`],
      [`{"inner":{}}`, `{"inner":{}}`, `{"inner":{}}`],
    ],
  },
  {
    name: 'null/empty list',
    root: 'nestedList',
    schema: `types:
- name: nestedList
  map:
    fields:
    - name: inner
      type:
        list:
          elementType:
            namedType: __untyped_atomic_
          elementRelationship: atomic
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{}`, `{"inner":[]}`, `{"inner":[]}`],
      [`{}`, `{"inner":null}`, `{"inner":null}`],
      [`{"inner":null}`, `{"inner":[]}`, `{"inner":[]}`],
      [`{"inner":[]}`, `{"inner":null}`, `{"inner":null}`],
      [`{"inner":[]}`, `{"inner":[]}`, `{"inner":[]}`],
    ],
  },
  {
    name: 'struct grab bag',
    root: 'myStruct',
    schema: `types:
- name: myStruct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
`,
    rows: [
      [`{"numeric":1}`, `{"numeric":3.14159}`, `{"numeric":3.14159}`],
      [`{"numeric":3.14159}`, `{"numeric":1}`, `{"numeric":1}`],
      [`{"string":"aoeu"}`, `{"bool":true}`, `{"string":"aoeu","bool":true}`],
      [`{"setStr":["a","b","c"]}`, `{"setStr":["a","b"]}`, `{"setStr":["a","b","c"]}`],
      [`{"setStr":["a","b"]}`, `{"setStr":["a","b","c"]}`, `{"setStr":["a","b","c"]}`],
      [`{"setStr":["a","b","c"]}`, `{"setStr":[]}`, `{"setStr":["a","b","c"]}`],
      [`{"setStr":[]}`, `{"setStr":["a","b","c"]}`, `{"setStr":["a","b","c"]}`],
      [`{"setStr":["a","b"]}`, `{"setStr":["b","a"]}`, `{"setStr":["b","a"]}`],
      [`{"setStr":["a","b","c"]}`, `{"setStr":["d","e","f"]}`, `{"setStr":["a","b","c","d","e","f"]}`],
      [`{"setStr":["a","b","c"]}`, `{"setStr":["c","d","e","f"]}`, `{"setStr":["a","b","c","d","e","f"]}`],
      [`{"setStr":["a","b","c","g","f"]}`, `{"setStr":["c","d","e","f"]}`, `{"setStr":["a","b","c","g","d","e","f"]}`],
      [`{"setStr":["a","b","c"]}`, `{"setStr":["d","e","f","x","y","z"]}`, `{"setStr":["a","b","c","d","e","f","x","y","z"]}`],
      [`{"setStr":["c","d","e","f"]}`, `{"setStr":["a","c","e"]}`, `{"setStr":["a","c","d","e","f"]}`],
      [`{"setStr":["a","b","c","x","y","z"]}`, `{"setStr":["d","e","f"]}`, `{"setStr":["a","b","c","x","y","z","d","e","f"]}`],
      [`{"setStr":["a","b","c","x","y","z"]}`, `{"setStr":["d","e","f","x","y","z"]}`, `{"setStr":["a","b","c","d","e","f","x","y","z"]}`],
      [`{"setStr":["c","a","g","f"]}`, `{"setStr":["c","f","a","g"]}`, `{"setStr":["c","f","a","g"]}`],
      [`{"setStr":["a","b","c","d"]}`, `{"setStr":["d","e","f","a"]}`, `{"setStr":["b","c","d","e","f","a"]}`],
      [`{"setStr":["c","d","e","f","g","h","i","j"]}`, `{"setStr":["2","h","3","e","4","k","l"]}`, `{"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]}`],
      [`{"setStr":["a","b","c","d","e","f","g","h","i","j"]}`, `{"setStr":["1","b","2","h","3","e","4","k","l"]}`, `{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}`],
      [`{"setStr":["a","b","b"]}`, `{"setStr":["c"]}`, `{"setStr":["a","b","b","c"]}`],
      [`{"setStr":["a","b","b"]}`, `{"setStr":["b"]}`, `{"setStr":["a","b"]}`],
      [`{"setStr":["a","b","b"]}`, `{"setStr":["a"]}`, `{"setStr":["a","b","b"]}`],
      [`{"setStr":["a","b","c","d","e","c"]}`, `{"setStr":["1","b","2","e","d"]}`, `{"setStr":["a","1","b","c","2","e","c","d"]}`],
      [`{"setStr":["a","b","c","d","e","c"]}`, `{"setStr":["1","b","2","c","e","d"]}`, `{"setStr":["a","1","b","2","c","e","d"]}`],
      [`{"setStr":["a","a","b","b"]}`, `{"setStr":["b","c","d"]}`, `{"setStr":["a","a","b","c","d"]}`],
      [`{"setStr":["a","a","b","b"]}`, `{"setStr":[]}`, `{"setStr":["a","a","b","b"]}`],
      [`{"setBool":[true]}`, `{"setBool":[false]}`, `{"setBool":[true, false]}`],
      [`{"setNumeric":[1,2,3.14159]}`, `{"setNumeric":[1,2,3]}`, `{"setNumeric":[1,2,3.14159,3]}`],
      [`{"setStr":["c","a","g","f","c","a"]}`, `{"setStr":["c","f","a","g"]}`, `{"setStr":["c","f","a","g"]}`],
      [`{"setNumeric":[1,2,3.14159,1,2]}`, `{"setNumeric":[1,2,3]}`, `{"setNumeric":[1,2,3.14159,3]}`],
      [`{"setBool":[true,false,true]}`, `{"setBool":[false]}`, `{"setBool":[true,false,true]}`],
      [`{"setBool":[true,false,true]}`, `{"setBool":[true]}`, `{"setBool":[true, false]}`],
    ],
  },
  {
    name: 'associative list',
    root: 'myRoot',
    schema: `types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myElement
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
`,
    rows: [
      [`{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`],
      [`{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}`],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":1}]}`, `{"list":[{"key":"a","id":1},{"key":"a","id":2}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}`],
      [`{"list":[{"key":"b","id":2}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}`],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}`, `{"list":[{"key":"c","id":3},{"key":"b","id":2}]}`, `{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}`],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}`, `{"list":[{"key":"c","id":3},{"key":"a","id":1}]}`, `{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}`],
      [`{"atomicList":["a","a","a"]}`, `{"atomicList":null}`, `{"atomicList":null}`],
      [`{"atomicList":["a","b","c"]}`, `{"atomicList":[]}`, `{"atomicList":[]}`],
      [`{"atomicList":["a","a","a"]}`, `{"atomicList":["a","a"]}`, `{"atomicList":["a","a"]}`],
      [`{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}`, `{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}`, `{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}`],
      [`{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}`, `{"list":[]}`, `{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}`],
      [`{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}`, `{}`, `{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}`],
    ],
  },
];

const SYMDIFF: readonly Table<readonly [string, string, readonly string[], readonly string[], readonly string[]]>[] = [
  {
    name: 'simple pair',
    root: 'stringPair',
    schema: `types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{"key":"foo","value":1}`, `{"key":"foo","value":1}`, [], [], []],
      [`{"key":"foo","value":{}}`, `{"key":"foo","value":1}`, [], ['.value'], []],
      [`{"key":"foo","value":1}`, `{"key":"foo","value":{}}`, [], ['.value'], []],
      [`{"key":"foo","value":1}`, `{"key":"foo","value":{"doesn't matter":"what's here","or":{"how":"nested"}}}`, [], ['.value'], []],
      [`{"key":"foo","value":null}`, `{"key":"foo","value":{}}`, [], ['.value'], []],
      [`{"key":"foo"}`, `{"value":true}`, ['.key'], [], ['.value']],
      [`{"key":"foot"}`, `{"key":"foo","value":true}`, [], ['.key'], ['.value']],
    ],
  },
  {
    name: 'null/empty map',
    root: 'nestedMap',
    schema: `types:
- name: nestedMap
  map:
    fields:
    - name: inner
      type:
        map:
          elementType:
            namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{}`, `{"inner":{}}`, [], [], ['.inner']],
      [`{}`, `{"inner":null}`, [], [], ['.inner']],
      [`{"inner":null}`, `{"inner":{}}`, [], ['.inner'], []],
      [`{"inner":{}}`, `{"inner":null}`, [], ['.inner'], []],
      [`{"inner":{}}`, `{"inner":{}}`, [], [], []],
    ],
  },
  {
    name: 'null/empty struct',
    root: 'nestedStruct',
    schema: `types:
- name: nestedStruct
  map:
    fields:
    - name: inner
      type:
        map:
          fields:
          - name: value
            type:
              namedType: __untyped_atomic_
`,
    rows: [
      [`{}`, `{"inner":{}}`, [], [], ['.inner']],
      [`{}`, `{"inner":null}`, [], [], ['.inner']],
      [`{"inner":null}`, `{"inner":{}}`, [], ['.inner'], []],
      [`{"inner":{}}`, `{"inner":null}`, [], ['.inner'], []],
      [`{"inner":{}}`, `{"inner":{}}`, [], [], []],
    ],
  },
  {
    name: 'null/empty list',
    root: 'nestedList',
    schema: `types:
- name: nestedList
  map:
    fields:
    - name: inner
      type:
        list:
          elementType:
            namedType: __untyped_atomic_
          elementRelationship: atomic
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{}`, `{"inner":[]}`, [], [], ['.inner']],
      [`{}`, `{"inner":null}`, [], [], ['.inner']],
      [`{"inner":null}`, `{"inner":[]}`, [], ['.inner'], []],
      [`{"inner":[]}`, `{"inner":null}`, [], ['.inner'], []],
      [`{"inner":[]}`, `{"inner":[]}`, [], [], []],
    ],
  },
  {
    name: 'map merge',
    root: 'nestedMap',
    schema: `types:
- name: nestedMap
  map:
    elementType:
      namedType: nestedMap
`,
    rows: [
      [`{"a":{},"b":{}}`, `{"a":{},"b":{}}`, [], [], []],
      [`{"a":{}}`, `{"b":{}}`, ['.a'], [], ['.b']],
      [`{"a":{"b":{"c":{}}}}`, `{"a":{"b":{}}}`, ['.a.b.c'], [], []],
      [`{"a":{}}`, `{"a":{"b":{}}}`, [], [], ['.a.b']],
    ],
  },
  {
    name: 'untyped deduced',
    root: '__untyped_deduced_',
    schema: `types:
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_deduced_
    elementRelationship: separable
`,
    rows: [
      [`{"a":{}}`, `{"a":{"b":{}}}`, [], [], ['.a.b']],
      [`{"a":null}`, `{"a":{"b":{}}}`, [], [], ['.a.b']],
      [`{"a":{"b":{}}}`, `{"a":{}}`, ['.a.b'], [], []],
      [`{"a":{"b":{}}}`, `{"a":null}`, ['.a.b'], [], []],
      [`{"a":[]}`, `{"a":["b"]}`, [], ['.a'], []],
      [`{"a":null}`, `{"a":["b"]}`, [], ['.a'], []],
      [`{"a":["b"]}`, `{"a":[]}`, [], ['.a'], []],
      [`{"a":["b"]}`, `{"a":null}`, [], ['.a'], []],
      [`{"a":null}`, `{"a":"b"}`, [], ['.a'], []],
      [`{"a":"b"}`, `{"a":null}`, [], ['.a'], []],
      [`{"a":{"b":{}}}`, `{"a":["b"]}`, ['.a.b'], ['.a'], []],
      [`{"a":["b"]}`, `{"a":{"b":{}}}`, [], ['.a'], ['.a.b']],
      [`{"a":{"b":{}}}`, `{"a":"b"}`, ['.a.b'], ['.a'], []],
      [`{"a":"b"}`, `{"a":{"b":{}}}`, [], ['.a'], ['.a.b']],
      [`{"a":["b"]}`, `{"a":"b"}`, [], ['.a'], []],
      [`{"a":"b"}`, `{"a":["b"]}`, [], ['.a'], []],
    ],
  },
  {
    name: 'untyped separable',
    root: '__untyped_separable_',
    schema: `types:
- name: __untyped_separable_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_separable_
    elementRelationship: associative
  map:
    elementType:
      namedType: __untyped_separable_
    elementRelationship: separable
`,
    rows: [
      [`{"a":{}}`, `{"a":{"b":{}}}`, [], [], ['.a.b']],
      [`{"a":null}`, `{"a":{"b":{}}}`, [], [], ['.a.b']],
      [`{"a":{"b":{}}}`, `{"a":{}}`, ['.a.b'], [], []],
      [`{"a":{"b":{}}}`, `{"a":null}`, ['.a.b'], [], []],
      [`{"a":[]}`, `{"a":["b"]}`, [], [], ['.a[="b"]']],
      [`{"a":null}`, `{"a":["b"]}`, [], ['.a'], ['.a[="b"]']],
      [`{"a":["b"]}`, `{"a":[]}`, ['.a[="b"]'], [], []],
      [`{"a":["b"]}`, `{"a":null}`, ['.a[="b"]'], ['.a'], []],
      [`{"a":null}`, `{"a":"b"}`, [], ['.a'], []],
      [`{"a":"b"}`, `{"a":null}`, [], ['.a'], []],
      [`{"a":{"b":{}}}`, `{"a":["b"]}`, ['.a.b'], [], ['.a[="b"]']],
      [`{"a":["b"]}`, `{"a":{"b":{}}}`, ['.a[="b"]'], [], ['.a.b']],
      [`{"a":{"b":{}}}`, `{"a":"b"}`, ['.a.b'], ['.a'], []],
      [`{"a":"b"}`, `{"a":{"b":{}}}`, [], ['.a'], ['.a.b']],
      [`{"a":["b"]}`, `{"a":"b"}`, ['.a[="b"]'], ['.a'], []],
      [`{"a":"b"}`, `{"a":["b"]}`, [], ['.a'], ['.a[="b"]']],
    ],
  },
  {
    name: 'struct grab bag',
    root: 'myStruct',
    schema: `types:
- name: myStruct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
`,
    rows: [
      [`{"numeric":1}`, `{"numeric":3.14159}`, [], ['.numeric'], []],
      [`{"numeric":3.14159}`, `{"numeric":1}`, [], ['.numeric'], []],
      [`{"string":"aoeu"}`, `{"bool":true}`, ['.string'], [], ['.bool']],
      [`{"setStr":["a","b"]}`, `{"setStr":["a","b","c"]}`, [], [], ['.setStr[="c"]']],
      [`{"setStr":["a"]}`, `{"setStr":["a","b","b"]}`, [], [], ['.setStr[="b"]']],
      [`{"setStr":["a","b"]}`, `{"setStr":["a","b","b"]}`, ['.setStr[="b"]'], [], ['.setStr[="b"]']],
      [`{"setStr":["b","b"]}`, `{"setStr":["a","b","b"]}`, [], [], ['.setStr[="a"]']],
      [`{"setStr":["a","b","c"]}`, `{"setStr":[]}`, ['.setStr[="a"]', '.setStr[="b"]', '.setStr[="c"]'], [], []],
      [`{"setBool":[true]}`, `{"setBool":[false]}`, ['.setBool[=true]'], [], ['.setBool[=false]']],
      [`{"setNumeric":[1,2,3.14159]}`, `{"setNumeric":[1,2,3]}`, ['.setNumeric[=3.14159]'], [], ['.setNumeric[=3]']],
      [`{"setStr":["a","b","b","c","a"]}`, `{"setStr":[]}`, ['.setStr[="a"]', '.setStr[="b"]', '.setStr[="c"]'], [], []],
      [`{"setBool":[true,true]}`, `{"setBool":[false]}`, ['.setBool[=true]'], [], ['.setBool[=false]']],
      [`{"setNumeric":[1,2,2,3.14159,1]}`, `{"setNumeric":[1,2,3]}`, ['.setNumeric[=1]', '.setNumeric[=2]', '.setNumeric[=3.14159]'], [], ['.setNumeric[=1]', '.setNumeric[=2]', '.setNumeric[=3]']],
    ],
  },
  {
    name: 'associative list',
    root: 'myRoot',
    schema: `types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myElement
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
`,
    rows: [
      [`{}`, `{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, [], [], ['.list', '.list[id=1,key="a"]', '.list[id=1,key="a"].key', '.list[id=1,key="a"].id', '.list[id=1,key="a"].value', '.list[id=1,key="a"].value.a']],
      [`{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, [], [], []],
      [`{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":1,"value":{"a":"b"}}]}`, [], ['.list[id=1,key="a"].value.a'], []],
      [`{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}`, `{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}`, ['.list[id=1,key="a"]', '.list[id=1,key="a"].key', '.list[id=1,key="a"].id', '.list[id=1,key="a"].value', '.list[id=1,key="a"].value.a'], [], ['.list[id=2,key="a"]', '.list[id=2,key="a"].key', '.list[id=2,key="a"].id', '.list[id=2,key="a"].value', '.list[id=2,key="a"].value.a']],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":1}]}`, `{"list":[{"key":"a","id":1},{"key":"a","id":2}]}`, ['.list[id=1,key="b"]', '.list[id=1,key="b"].key', '.list[id=1,key="b"].id'], [], ['.list[id=2,key="a"]', '.list[id=2,key="a"].key', '.list[id=2,key="a"].id']],
      [`{"atomicList":["a","a","a"]}`, `{"atomicList":null}`, [], ['.atomicList'], []],
      [`{"atomicList":["a","b","c"]}`, `{"atomicList":[]}`, [], ['.atomicList'], []],
      [`{"atomicList":["a","a","a"]}`, `{"atomicList":["a","a"]}`, [], ['.atomicList'], []],
      [`{"list":[{"key":"a","id":1,"nv":2},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}`, `{"list":[{"key":"a","id":1},{"key":"a","id":2}]}`, ['.list[id=1,key="b"]', '.list[id=1,key="b"].key', '.list[id=1,key="b"].id', '.list[id=1,key="a"]'], [], ['.list[id=1,key="a"]', '.list[id=1,key="a"].key', '.list[id=1,key="a"].id', '.list[id=2,key="a"]', '.list[id=2,key="a"].key', '.list[id=2,key="a"].id']],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true,"nv":1}]}`, [], ['.list[id=1,key="a"]'], []],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}`, [], [], []],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":1,"bv":true},{"key":"a","id":1,"bv":true}]}`, [], [], ['.list[id=1,key="b"].bv']],
      [`{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}`, `{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}],"atomicList":["unrelated"]}`, [], [], ['.atomicList']],
    ],
  },
];

const REMOVE: readonly Table<readonly [string, readonly string[], string, string]>[] = [
  {
    name: 'simple pair',
    root: 'stringPair',
    schema: `types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`,
    rows: [
      [`{"key":"foo"}`, ['.key'], ``, `{"key":"foo"}`],
      [`{"key":"foo"}`, [], `{"key":"foo"}`, ``],
      [`{"key":"foo","value":true}`, ['.key'], `{"value":true}`, `{"key":"foo"}`],
      [`{"key":"foo","value":{"a": "b"}}`, ['.value'], `{"key":"foo"}`, `{"value":{"a": "b"}}`],
    ],
  },
  {
    name: 'struct grab bag',
    root: 'myStruct',
    schema: `types:
- name: myStruct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
`,
    rows: [
      [`{"setBool":[false]}`, ['.setBool[=false]'], `{"setBool":null}`, `{"setBool":[false]}`],
      [`{"setBool":[false]}`, ['.setBool[=true]'], `{"setBool":[false]}`, `{"setBool":null}`],
      [`{"setBool":[true,false]}`, ['.setBool[=true]'], `{"setBool":[false]}`, `{"setBool":[true]}`],
      [`{"setBool":[true,false]}`, ['.setBool'], ``, `{"setBool":null}`],
      [`{"setNumeric":[1,2,3,4.5]}`, ['.setNumeric[=1]', '.setNumeric[=4.5]'], `{"setNumeric":[2,3]}`, `{"setNumeric":[1,4.5]}`],
      [`{"setStr":["a","b","c"]}`, ['.setStr[="a"]'], `{"setStr":["b","c"]}`, `{"setStr":["a"]}`],
    ],
  },
  {
    name: 'associative and atomic',
    root: 'myRoot',
    schema: `types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
    - name: atomicMap
      type:
        namedType: myAtomicMap
    - name: atomicElementList
      type:
        namedType: myAtomicElementList
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: myAtomicMap
  map:
    fields:
    - name: id
      type:
        scalar: string
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myAtomicElementList
  list:
    elementType:
      namedType: myAtomicMap
    elementRelationship: associative
    keys:
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myElement
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
`,
    rows: [
      [`{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}`, ['.list[id=1,key="a"].key', '.list[id=1,key="a"].id'], `unparseable`, `{"list":[{"key":"a","id":1}]}`],
      [`{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}`, ['.list[id=1,key="a"]'], `{"list":[{"key":"a","id":2},{"key":"b","id":1}]}`, `unparseable`],
      [`{"atomicList":["a", "a", "a"]}`, ['.atomicList'], ``, `{"atomicList":["a", "a", "a"]}`],
      [`{"atomicMap":{"a": "c", "b": "d"}}`, ['.atomicMap'], ``, `{"atomicMap":{"a": "c", "b": "d"}}`],
    ],
  },
  {
    name: 'nested types',
    root: 'type',
    schema: `types:
- name: type
  map:
    fields:
      - name: listOfLists
        type:
          namedType: listOfLists
      - name: listOfMaps
        type:
          namedType: listOfMaps
      - name: mapOfLists
        type:
          namedType: mapOfLists
      - name: mapOfMaps
        type:
          namedType: mapOfMaps
      - name: mapOfMapsRecursive
        type:
          namedType: mapOfMapsRecursive
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value
      type:
        scalar: number
- name: listOfLists
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: list
    elementRelationship: associative
    keys:
    - name
- name: list
  list:
    elementType:
      scalar: string
    elementRelationship: associative
- name: listOfMaps
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: map
    elementRelationship: associative
    keys:
    - name
- name: map
  map:
    elementType:
      scalar: string
    elementRelationship: associative
- name: mapOfLists
  map:
    elementType:
      namedType: list
    elementRelationship: associative
- name: mapOfMaps
  map:
    elementType:
      namedType: map
    elementRelationship: associative
- name: mapOfMapsRecursive
  map:
    elementType:
      namedType: mapOfMapsRecursive
    elementRelationship: associative
`,
    rows: [
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="b"]', '.listOfLists[name="a"].value[="c"]', '.listOfLists[name="d"].name'], `unparseable`, `{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists'], ``, `{"listOfLists": null}`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="d"].name'], `unparseable`, `{"listOfLists": [{"name": "d"}]}`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="d"]'], `{"listOfLists": [{"name": "a", "value": ["b", "c"]}]}`, `unparseable`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"].name'], `unparseable`, `{"listOfLists": [{"name": "a"}]}`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"]'], `{"listOfLists": [{"name": "d"}]}`, `unparseable`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"].value[="b"]'], `{"listOfLists": [{"name":"a", "value": ["c"]}, {"name": "d"}]}`, `unparseable`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="b"]'], `unparseable`, `{"listOfLists": [{"name": "a", "value": ["b"]}]}`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="x"]'], `{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, `{"listOfLists":null}`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"].value[="x"]'], `{"listOfLists": [{"name":"a", "value": ["b","c"]}, {"name": "d"}]}`, `unparseable`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="x"]'], `unparseable`, `unparseable`],
      [`{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ['[="b"]'], `{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}`, ``],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"].name', '.listOfMaps[name="a"].value.b', '.listOfMaps[name="a"].value.c', '.listOfMaps[name="d"].name', '.listOfMaps[name="d"].value.e'], `unparseable`, `{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps'], ``, `{"listOfMaps"}`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"].name'], `unparseable`, `{"listOfMaps": [{"name": "a"}]}`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"]'], `{"listOfMaps": [{"name": "d", "value": {"e":"z"}}]}`, `unparseable`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"].value.b'], `{"listOfMaps": [{"name": "a", "value": {"c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, `unparseable`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"].name', '.listOfMaps[name="a"].value.b'], `unparseable`, `{"listOfMaps": [{"name": "a", "value": {"b":"x"}}]}`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="q"].name'], `{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, `{"listOfMaps":null}`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"].value.q'], `{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, `unparseable`],
      [`{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}`, ['.listOfMaps[name="a"].name', '.listOfMaps[name="a"].value.q'], `unparseable`, `{"listOfMaps": [{"name":"a", "value": null}]}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['.mapOfLists.b[="a"]', '.mapOfLists.b[="c"]', '.mapOfLists.d[="e"]', '.mapOfLists.d[="f"]'], `unparseable`, `{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['.mapOfLists'], ``, `{"mapOfLists":null}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['.mapOfLists.b'], `{"mapOfLists": {"d":["e", "f"]}}`, `{"mapOfLists": {"b":null}}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['.mapOfLists.b[="a"]'], `{"mapOfLists":{"b":["c"],"d":["e", "f"]}}`, `{"mapOfLists":{"b":["a"]}}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['.mapOfLists.q'], `{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, `{"mapOfLists":null}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['.mapOfLists.b[="q"]'], `{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, `{"mapOfLists":{"b":null}}`],
      [`{"mapOfLists": {"b":null, "d":["e", "f"]}}`, ['.mapOfLists.b'], `{"mapOfLists": {"d":["e", "f"]}}`, `{"mapOfLists":{"b":null}}`],
      [`{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ['[="a"]'], `{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}`, ``],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps.b.a', '.mapOfMaps.b.c', '.mapOfMaps.d.e', '.mapOfMaps.d.f'], `unparseable`, `{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps'], ``, `{"mapOfMaps":null}`],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps.b'], `{"mapOfMaps": {"d":{"e":"y", "f":"w"}}}`, `{"mapOfMaps": {"b":null}}`],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps.b.a'], `{"mapOfMaps": {"b":{"c":"z"},"d":{"e":"y", "f":"w"}}}`, `{"mapOfMaps": {"b":{"a":"x"}}}`],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps.q'], `{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, `{"mapOfMaps": null}`],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps.b.q'], `{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, `{"mapOfMaps": {"b":null}}`],
      [`{"mapOfMaps": {"b":null, "d":{"e":"y", "f":"w"}}}`, ['.mapOfMaps.b'], `{"mapOfMaps": {"d":{"e":"y", "f":"w"}}}`, `{"mapOfMaps": {"b":null}}`],
      [`{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ['.a'], `{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}`, ``],
      [`{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}`, ['.mapOfMapsRecursive'], ``, `{"mapOfMapsRecursive":null}`],
      [`{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}`, ['.mapOfMapsRecursive.a'], `{"mapOfMapsRecursive"}`, `{"mapOfMapsRecursive": {"a":null}}`],
      [`{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}`, ['.mapOfMapsRecursive.a.b'], `{"mapOfMapsRecursive":{"a":null}}`, `{"mapOfMapsRecursive": {"a":{"b":null}}}`],
      [`{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}`, ['.mapOfMapsRecursive.a.b.c'], `{"mapOfMapsRecursive":{"a":{"b":null}}}`, `{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}`],
      [`{"listOfLists": []}`, ['.listOfLists'], ``, `{"listOfLists": []}`],
      [`{"listOfLists": null}`, ['.listOfLists'], ``, `{"listOfLists": null}`],
      [`{"mapOfMaps": {}}`, ['.mapOfMaps'], ``, `{"mapOfMaps": {}}`],
      [`{"mapOfMaps": null}`, ['.mapOfMaps'], ``, `{"mapOfMaps": null}`],
    ],
  },
];

describe('ToFieldSet (typed/toset_test.go)', () => {
  for (const table of TO_SET) {
    const type = smdSchema(table.schema).type(table.root);
    table.rows.forEach(([object, paths], i) => {
      it(`${table.name} ${i}`, () => {
        const got = toFieldSet(yaml(object), type);
        assert.ok(got.equals(setOf(...paths)), `got\n${got.toString()}`);
      });
    });
  }
});

describe('Merge (typed/merge_test.go)', () => {
  for (const table of MERGE) {
    const type = smdSchema(table.schema).type(table.root);
    table.rows.forEach(([lhs, rhs, out], i) => {
      it(`${table.name} ${i}`, () => {
        const got = mergeValues(yaml(lhs), yaml(rhs), type) ?? null;
        assert.ok(equals(got, yaml(out)), `got ${show(got)}, want ${show(yaml(out))}`);
      });
    });
  }
});

describe('Compare (typed/symdiff_test.go)', () => {
  for (const table of SYMDIFF) {
    const type = smdSchema(table.schema).type(table.root);
    table.rows.forEach(([lhs, rhs, removed, modified, added], i) => {
      it(`${table.name} ${i}`, () => {
        const c = compareValues(yaml(lhs), yaml(rhs), type);
        assert.ok(c.removed.equals(setOf(...removed)), `removed\n${c.removed.toString()}`);
        assert.ok(c.modified.equals(setOf(...modified)), `modified\n${c.modified.toString()}`);
        assert.ok(c.added.equals(setOf(...added)), `added\n${c.added.toString()}`);
        const r = compareValues(yaml(rhs), yaml(lhs), type);
        assert.ok(r.modified.equals(c.modified) && r.removed.equals(c.added) && r.added.equals(c.removed), 'reverse');
      });
    });
  }
});

describe('RemoveItems (typed/remove_test.go)', () => {
  for (const table of REMOVE) {
    const type = smdSchema(table.schema).type(table.root);
    table.rows.forEach(([object, paths, removed], i) => {
      if (removed === 'unparseable') return;
      it(`${table.name} ${i}`, () => {
        const got = removeItems(yaml(object), type, setOf(...paths));
        assert.ok(equals(got, yaml(removed)), `got ${show(got)}, want ${show(yaml(removed))}`);
      });
    });
  }
});
