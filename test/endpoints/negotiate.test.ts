/** Content negotiation (spec 4.6): the Accept strings real clients send, 406, includeObject, request body types. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  contentTypeOf,
  negotiate,
  parseAccept,
  parseIncludeObject,
  type NegotiateOptions,
  type Negotiated,
} from '../../src/endpoints/negotiate.ts';
import { StatusError } from '../../src/api/status.ts';

/** kubectl 1.32 `get`: Table in v1, then v1beta1, then plain JSON. */
const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
/** client-go for built-in types with protobuf enabled. */
const CLIENT_GO_PROTOBUF = 'application/vnd.kubernetes.protobuf,application/json';
/** kubectl's discovery and `get --raw`. */
const KUBECTL_DISCOVERY = 'application/json, */*';
/** Firefox / Chrome navigating to the URL. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
/** client-go's metadata client (garbage collector, metadata informers). */
const METADATA_CLIENT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

const GET: NegotiateOptions = { protobufAllowed: true, tableAllowed: true, watch: false };
const POST: NegotiateOptions = { protobufAllowed: true, tableAllowed: false, watch: false };
const CRD_GET: NegotiateOptions = { protobufAllowed: false, tableAllowed: true, watch: false };
const WATCH: NegotiateOptions = { protobufAllowed: true, tableAllowed: true, watch: true };

const JSON_ANSWER: Negotiated = { kind: 'json', contentType: 'application/json' };

function table(group: string, version: string, includeObject = 'Metadata'): Negotiated {
  return { kind: 'table', group, version, includeObject, contentType: 'application/json' } as Negotiated;
}

function notAcceptable(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected 406');
}

describe('negotiate: what kubectl and client-go send', () => {
  it("answers kubectl get with a Table in the group it asked for", () => {
    assert.deepEqual(negotiate(KUBECTL_GET, GET), table('meta.k8s.io', 'v1'));
  });

  it('answers meta.orch.io requests in meta.orch.io, v1 and v1beta1', () => {
    assert.deepEqual(negotiate('application/json;as=Table;g=meta.orch.io;v=v1', GET), table('meta.orch.io', 'v1'));
    assert.deepEqual(negotiate('application/json;as=Table;g=meta.orch.io;v=v1beta1', GET), table('meta.orch.io', 'v1beta1'));
    assert.deepEqual(negotiate('application/json;as=Table;v=v1beta1;g=meta.k8s.io', GET), table('meta.k8s.io', 'v1beta1'));
  });

  it('falls back to JSON where no Table can be given (writes, tables off)', () => {
    assert.deepEqual(negotiate(KUBECTL_GET, POST), JSON_ANSWER);
  });

  it('gives client-go protobuf for built-in types and JSON for extension types', () => {
    assert.deepEqual(negotiate(CLIENT_GO_PROTOBUF, GET), {
      kind: 'protobuf',
      mediaType: 'application/vnd.kubernetes.protobuf',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    assert.deepEqual(negotiate(CLIENT_GO_PROTOBUF, CRD_GET), JSON_ANSWER);
  });

  it('answers protobuf in the media type the client named', () => {
    assert.deepEqual(negotiate('application/vnd.orch.protobuf', GET), {
      kind: 'protobuf',
      mediaType: 'application/vnd.orch.protobuf',
      contentType: 'application/vnd.orch.protobuf',
    });
  });

  it('gives JSON to discovery-style and browser Accept headers', () => {
    assert.deepEqual(negotiate(KUBECTL_DISCOVERY, GET), JSON_ANSWER);
    assert.deepEqual(negotiate(BROWSER, GET), JSON_ANSWER);
    assert.deepEqual(negotiate('*/*', GET), JSON_ANSWER);
    assert.deepEqual(negotiate('*', GET), JSON_ANSWER);
    assert.deepEqual(negotiate('application/*', GET), JSON_ANSWER);
  });

  it('gives JSON without an Accept header', () => {
    assert.deepEqual(negotiate(undefined, GET), JSON_ANSWER);
    assert.deepEqual(negotiate('', GET), JSON_ANSWER);
    assert.deepEqual(negotiate('   ', GET), JSON_ANSWER);
  });

  it('reads media types case-insensitively and tolerates spaces and charset', () => {
    assert.deepEqual(negotiate('Application/JSON; charset=utf-8', GET), JSON_ANSWER);
    assert.deepEqual(negotiate(' application/json ; as=Table ; v=v1 ; g=meta.k8s.io ', GET), table('meta.k8s.io', 'v1'));
  });
});

describe('negotiate: 406 Not Acceptable', () => {
  for (const garbage of ['text/plain', 'application/xml', 'foo', 'text/*', 'application/yaml', 'image/png, text/html']) {
    it(`rejects ${JSON.stringify(garbage)}`, () => {
      const err = notAcceptable(() => negotiate(garbage, GET));
      const status = err.toStatus();
      assert.equal(status.code, 406);
      assert.equal(status.reason, 'NotAcceptable');
      assert.equal(status.message, 'only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf, application/vnd.orch.protobuf');
    });
  }

  it('lists only JSON when protobuf is not served', () => {
    const err = notAcceptable(() => negotiate('application/vnd.kubernetes.protobuf', CRD_GET));
    assert.equal(err.message, 'only the following media types are accepted: application/json');
  });

  it('rejects a lone Table request where no Table can be given', () => {
    assert.equal(notAcceptable(() => negotiate('application/json;as=Table;v=v1;g=meta.k8s.io', POST)).code, 406);
  });

  it('rejects conversions it does not know (kind, group, version, stream, sv)', () => {
    for (const accept of [
      'application/json;as=Foo;v=v1;g=meta.k8s.io',
      'application/json;as=Table;v=v2;g=meta.k8s.io',
      'application/json;as=Table;v=v1;g=meta.example.io',
      'application/json;as=Table',
      'application/json;g=meta.k8s.io;v=v1',
      'application/json;stream=chunks',
      'application/json;sv=v2',
    ]) {
      assert.equal(notAcceptable(() => negotiate(accept, GET)).code, 406, accept);
    }
  });

  it('treats q=0 as "not acceptable"', () => {
    assert.equal(notAcceptable(() => negotiate('application/json;q=0', GET)).code, 406);
    assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf;q=0, */*;q=0.1', GET), JSON_ANSWER);
  });
});

describe('negotiate: preferences and parameters', () => {
  it('prefers the higher q-value whatever the order', () => {
    assert.deepEqual(negotiate('application/json;q=0.5, application/vnd.kubernetes.protobuf', GET), {
      kind: 'protobuf',
      mediaType: 'application/vnd.kubernetes.protobuf',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf;q=0.4, application/json;q=0.6', GET), JSON_ANSWER);
  });

  it('prefers a concrete type over a wildcard of equal q', () => {
    assert.deepEqual(negotiate('*/*, application/vnd.orch.protobuf', GET).kind, 'protobuf');
  });

  it('skips a protobuf Table (Tables are JSON only) and takes the next clause', () => {
    assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json', GET), JSON_ANSWER);
  });

  it('honours a Table asked through a wildcard', () => {
    assert.deepEqual(negotiate('*/*;as=Table;v=v1;g=meta.k8s.io', GET), table('meta.k8s.io', 'v1'));
  });

  it('ignores unknown parameters and pretty', () => {
    assert.deepEqual(negotiate('application/json;pretty=1;foo=bar', GET), JSON_ANSWER);
    assert.deepEqual(negotiate('application/json;__proto__=x;constructor=y', GET), JSON_ANSWER);
  });

  it('orders clauses by q, then specificity, then header order', () => {
    const clauses = parseAccept('*/*;q=0.8, text/*, text/html;level=1, application/json;q=0.9');
    assert.deepEqual(
      clauses.map((c) => `${c.type}/${c.subType};q=${c.q}`),
      ['text/html;q=1', 'text/*;q=1', 'application/json;q=0.9', '*/*;q=0.8'],
    );
    assert.deepEqual({ ...clauses[0]!.params }, { level: '1' });
  });
});

describe('negotiate: watches', () => {
  it('allows Tables on watches, as kubectl get -w asks', () => {
    assert.deepEqual(negotiate(KUBECTL_GET, WATCH), table('meta.k8s.io', 'v1'));
  });

  it('labels protobuf watch streams with stream=watch', () => {
    assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf;stream=watch', WATCH), {
      kind: 'protobuf',
      mediaType: 'application/vnd.kubernetes.protobuf',
      contentType: 'application/vnd.kubernetes.protobuf;stream=watch',
    });
    assert.deepEqual(negotiate('application/json;stream=watch', WATCH), JSON_ANSWER);
  });
});

describe('negotiate: includeObject', () => {
  it('defaults to Metadata and accepts None, Metadata and Object', () => {
    for (const [raw, want] of [
      [undefined, 'Metadata'],
      [null, 'Metadata'],
      ['', 'Metadata'],
      ['Metadata', 'Metadata'],
      ['None', 'None'],
      ['Object', 'Object'],
    ] as const) {
      assert.deepEqual(negotiate(KUBECTL_GET, { ...GET, includeObject: raw }), table('meta.k8s.io', 'v1', want));
    }
  });

  it('answers 400 with the original message for other values', () => {
    try {
      negotiate(KUBECTL_GET, { ...GET, includeObject: 'object' });
      assert.fail('expected 400');
    } catch (err) {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 400);
      assert.equal(err.reason, 'BadRequest');
      assert.equal(
        err.message,
        `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`,
      );
    }
    assert.throws(() => parseIncludeObject('all'), StatusError);
  });

  it('ignores includeObject when no Table is chosen', () => {
    assert.deepEqual(negotiate('application/json', { ...GET, includeObject: 'bogus' }), JSON_ANSWER);
  });
});

describe('negotiate: PartialObjectMetadata', () => {
  it('offers metadata lists to the metadata client when allowed', () => {
    assert.deepEqual(negotiate(METADATA_CLIENT, { ...GET, partialMetadataAllowed: true }), {
      kind: 'partial-metadata',
      list: true,
      group: 'meta.k8s.io',
      version: 'v1',
      encoding: 'application/vnd.kubernetes.protobuf',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    assert.deepEqual(negotiate('application/json;as=PartialObjectMetadata;g=meta.orch.io;v=v1', { ...GET, partialMetadataAllowed: true }), {
      kind: 'partial-metadata',
      list: false,
      group: 'meta.orch.io',
      version: 'v1',
      encoding: 'json',
      contentType: 'application/json',
    });
  });

  it('falls back to the full objects when not allowed', () => {
    assert.deepEqual(negotiate(METADATA_CLIENT, GET), JSON_ANSWER);
  });
});

describe('contentTypeOf', () => {
  it('reads the body formats', () => {
    assert.deepEqual(contentTypeOf(undefined), { kind: 'json', mediaType: 'application/json', defaulted: true });
    assert.deepEqual(contentTypeOf(''), { kind: 'json', mediaType: 'application/json', defaulted: true });
    assert.deepEqual(contentTypeOf('application/json'), { kind: 'json', mediaType: 'application/json', defaulted: false });
    assert.deepEqual(contentTypeOf('Application/JSON; charset=utf-8'), { kind: 'json', mediaType: 'application/json', defaulted: false });
    assert.deepEqual(contentTypeOf('application/yaml'), { kind: 'yaml', mediaType: 'application/yaml' });
    assert.deepEqual(contentTypeOf('application/vnd.kubernetes.protobuf'), { kind: 'protobuf', mediaType: 'application/vnd.kubernetes.protobuf' });
    assert.deepEqual(contentTypeOf('application/vnd.orch.protobuf'), { kind: 'protobuf', mediaType: 'application/vnd.orch.protobuf' });
  });

  it('reads the patch types', () => {
    assert.deepEqual(contentTypeOf('application/json-patch+json'), { kind: 'patch', patch: 'json', mediaType: 'application/json-patch+json' });
    assert.deepEqual(contentTypeOf('application/merge-patch+json; charset=utf-8'), { kind: 'patch', patch: 'merge', mediaType: 'application/merge-patch+json' });
    assert.deepEqual(contentTypeOf('application/strategic-merge-patch+json'), {
      kind: 'patch',
      patch: 'strategic-merge',
      mediaType: 'application/strategic-merge-patch+json',
    });
    assert.deepEqual(contentTypeOf('application/apply-patch+yaml'), { kind: 'patch', patch: 'apply', mediaType: 'application/apply-patch+yaml' });
  });

  it('marks everything else unsupported (415)', () => {
    for (const h of ['text/plain', '*/*', 'application/xml', 'garbage', 'application/', '/json', 'a/b/c']) {
      assert.equal(contentTypeOf(h).kind, 'unsupported', h);
    }
  });
});

describe('remembered Accept headers', () => {
  it('answer the same from memory, whatever the options, and past the memory bound', () => {
    const first = [KUBECTL_GET, CLIENT_GO_PROTOBUF, KUBECTL_DISCOVERY, BROWSER].map((h) => [negotiate(h, GET), negotiate(h, CRD_GET), negotiate(h, WATCH)]);
    // More distinct headers than are remembered (a client making them up), then the same four again.
    for (let i = 0; i < 200; i++) negotiate(`application/json;x=${i}`, GET);
    const again = [KUBECTL_GET, CLIENT_GO_PROTOBUF, KUBECTL_DISCOVERY, BROWSER].map((h) => [negotiate(h, GET), negotiate(h, CRD_GET), negotiate(h, WATCH)]);
    assert.deepEqual(again, first);
    assert.equal(first[1]![0]!.kind, 'protobuf');
    assert.equal(first[1]![1]!.kind, 'json', 'a type without Protobuf gets JSON from the same remembered clauses');
    assert.throws(() => negotiate('text/html', GET), StatusError);
    assert.throws(() => negotiate('text/html', GET), StatusError, 'still 406 once remembered');
  });
});
