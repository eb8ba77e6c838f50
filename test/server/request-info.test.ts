/**
 * parseRequestInfo against the tables of k8s.io/apiserver
 * pkg/endpoints/request/requestinfo_test.go (TestGetAPIRequestInfo,
 * TestGetNonAPIRequestInfo, TestSelectorParsing), plus the long-running
 * classification the timeout and in-flight filters rely on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RequestInfoError, parseRequestInfo } from '../../src/server/filters/with-request-info.ts';
import { isLongRunning } from '../../src/server/filters/long-running.ts';
import type { RequestInfo } from '../../src/server/context.ts';

function parse(method: string, url: string): RequestInfo {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return parseRequestInfo(method, path, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)));
}

describe('parseRequestInfo: resource requests (TestGetAPIRequestInfo)', () => {
  // method, url, verb, prefix, group, version, namespace, resource, subresource, name, parts
  type Row = [string, string, string, string, string, string, string, string, string, string, string[]];
  const rows: Row[] = [
    // resource paths
    ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
    ['GET', '/api/v1/namespaces/other', 'get', 'api', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
    ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['GET', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
    ['HEAD', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
    // special verbs
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    [
      'GET',
      '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource',
      'proxy',
      'api',
      '',
      'v1',
      'other',
      'pods',
      '',
      'foo',
      ['pods', 'foo', 'subpath', 'not', 'a', 'subresource'],
    ],
    ['GET', '/api/v1/watch/pods', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/pods?watch=true', 'watch', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/pods?watch=false', 'list', 'api', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    // subresource identification
    ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', 'api', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
    ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', 'api', '', 'v1', 'other', 'pods', 'proxy', 'foo', ['pods', 'foo', 'proxy', 'subpath']],
    ['PUT', '/api/v1/namespaces/other/finalize', 'update', 'api', '', 'v1', 'other', 'namespaces', 'finalize', 'other', ['namespaces', 'other', 'finalize']],
    ['PUT', '/api/v1/namespaces/other/status', 'update', 'api', '', 'v1', 'other', 'namespaces', 'status', 'other', ['namespaces', 'other', 'status']],
    // verb identification
    ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['POST', '/api/v1/namespaces/other/pods', 'create', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    // deletecollection verb identification
    ['DELETE', '/api/v1/nodes', 'deletecollection', 'api', '', 'v1', '', 'nodes', '', '', ['nodes']],
    ['DELETE', '/api/v1/namespaces', 'deletecollection', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
    ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'api', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['DELETE', '/apis/extensions/v1/namespaces/other/pods', 'deletecollection', 'apis', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
    // api group identification
    ['POST', '/apis/extensions/v1/namespaces/other/pods', 'create', 'apis', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
    // api version identification
    ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'apis', 'extensions', 'v1beta3', 'other', 'pods', '', '', ['pods']],
    // beyond the original's table: the certificate workflow's subresources, an unknown method
    [
      'PUT',
      '/apis/certificates.orch.io/v1/certificatesigningrequests/csr-1/approval',
      'update',
      'apis',
      'certificates.orch.io',
      'v1',
      '',
      'certificatesigningrequests',
      'approval',
      'csr-1',
      ['certificatesigningrequests', 'csr-1', 'approval'],
    ],
    ['OPTIONS', '/api/v1/namespaces/other/pods/foo', '', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ];

  for (const [method, url, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts] of rows) {
    it(`${method} ${url}`, () => {
      const info = parse(method, url);
      assert.equal(info.isResourceRequest, true);
      assert.deepEqual(
        { verb: info.verb, apiPrefix: info.apiPrefix, apiGroup: info.apiGroup, apiVersion: info.apiVersion, namespace: info.namespace, resource: info.resource, subresource: info.subresource, name: info.name, parts: [...info.parts] },
        { verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts },
      );
    });
  }
});

describe('parseRequestInfo: non-resource requests', () => {
  const cases: [string, string, boolean][] = [
    // TestGetAPIRequestInfo errorCases: all are non-resource, none is an error
    ['no resource path', '/', false],
    ['just apiversion', '/api/version/', false],
    ['just prefix, group, version', '/apis/group/version/', false],
    ['bad prefix', '/badprefix/version/resource', false],
    ['missing api group', '/apis/version/resource', false],
    // TestGetNonAPIRequestInfo
    ['simple groupless', '/api/version/resource', true],
    ['simple group', '/apis/group/version/resource/name/subresource', true],
    ['more steps', '/api/version/resource/name/subresource', true],
    ['group list', '/apis/batch/v1/job', true],
    ['group get', '/apis/batch/v1/job/foo', true],
    ['group subresource', '/apis/batch/v1/job/foo/scale', true],
    ['bad root', '/not-api/version/resource', false],
    ['group without enough steps', '/apis/extensions/v1beta1', false],
    ['group without enough steps 2', '/apis/extensions/v1beta1/', false],
    ['not enough steps', '/api/version', false],
    ['one step', '/api', false],
    ['zero step', '/', false],
    ['empty', '', false],
  ];
  for (const [name, url, resource] of cases) {
    it(`${name}: ${JSON.stringify(url)} is ${resource ? '' : 'not '}a resource request`, () => {
      assert.equal(parse('GET', url).isResourceRequest, resource);
    });
  }

  it('uses the lower-case HTTP method as verb and keeps the path', () => {
    const info = parse('POST', '/healthz');
    assert.equal(info.verb, 'post');
    assert.equal(info.path, '/healthz');
    assert.equal(info.resource, '');
  });

  it('rejects a legacy special verb with nothing after it, as the original does', () => {
    assert.throws(() => parse('GET', '/api/v1/watch'), RequestInfoError);
    assert.throws(() => parse('GET', '/apis/apps/v1/proxy'), /unable to determine kind and namespace from url/);
  });
});

describe('parseRequestInfo: selectors (TestSelectorParsing)', () => {
  // method, url, name, verb
  const cases: [string, string, string, string][] = [
    ['GET', '/apis/group/version/resource', '', 'list'],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1', 'name1', 'list'],
    ['GET', '/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1', 'name1', 'watch'],
    ['GET', '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux', '', 'list'],
    // an unparsable selector: no name, but the watch parameter still counts
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo', '', 'list'],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true', '', 'watch'],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false', '', 'list'],
    ['DELETE', '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux', '', 'deletecollection'],
    // the first of repeated parameters wins
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar', 'foo', 'list'],
    ['GET', '/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar', 'name', 'get'],
    ['GET', '/apis/group/version/watch/resource?fieldSelector=metadata.name=foo&labelSelector=foo=bar', '', 'watch'],
    ['GET', '/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo&labelSelector=foo=bar', 'name', 'watch'],
    // beyond the original's table: other decode failures and unusable names
    ['GET', '/api/v1/pods?fieldSelector=metadata.name%3D%3Dpod1', 'pod1', 'list'],
    ['GET', '/api/v1/pods?fieldSelector=metadata.name!=pod1', '', 'list'],
    ['GET', '/api/v1/pods?fieldSelector=metadata.name=pod1&labelSelector=a%20in%20(', '', 'list'],
    ['GET', '/api/v1/pods?fieldSelector=metadata.name=pod1&limit=ten', '', 'list'],
    ['GET', '/api/v1/pods?fieldSelector=metadata.name=..', '', 'list'],
    ['GET', '/api/v1/pods?watch', '', 'watch'],
    ['GET', '/api/v1/pods?watch=FALSE', '', 'list'],
  ];
  for (const [method, url, name, verb] of cases) {
    it(`${method} ${url}`, () => {
      const info = parse(method, url);
      assert.equal(info.name, name);
      assert.equal(info.verb, verb);
    });
  }
});

describe('parseRequestInfo: path decoding', () => {
  it('percent-decodes the whole path before splitting, as Go URL.Path does', () => {
    const info = parse('GET', '/api/v1/namespaces/default/pods/my%2Dpod');
    assert.equal(info.name, 'my-pod');
    const encodedSlash = parse('GET', '/api/v1/namespaces/default/pods/a%2Fstatus');
    assert.equal(encodedSlash.name, 'a');
    assert.equal(encodedSlash.subresource, 'status');
  });

  it('keeps a malformed escape as sent', () => {
    assert.equal(parse('GET', '/api/v1/pods/%zz').name, '%zz');
  });

  it('splits on every slash as strings.Split does, after trimming the leading and trailing ones', () => {
    // The path split by hand (indexOf) must give what split('/') gives, empty segments included.
    // `namespaces//pods`: an empty namespace name, so a list of pods in every namespace (as the original).
    const info = parse('GET', '//api/v1/namespaces//pods/');
    assert.deepEqual([info.resource, info.namespace, info.verb, info.parts], ['pods', '', 'list', ['pods']]);
    const named = parse('GET', '/apis/apps/v1/namespaces/ns/deployments/d/scale/');
    assert.deepEqual([named.apiGroup, named.namespace, named.name, named.subresource, named.parts], ['apps', 'ns', 'd', 'scale', ['deployments', 'd', 'scale']]);
    assert.deepEqual(parse('GET', '///').parts, []);
    assert.equal(parse('GET', '///').isResourceRequest, false);
    assert.deepEqual(parse('GET', '/api/v1/namespaces/ns/configmaps/c').parts, ['configmaps', 'c']);
  });
});

describe('isLongRunning', () => {
  const cases: [string, string, boolean][] = [
    ['GET', '/api/v1/pods?watch=true', true],
    ['GET', '/api/v1/watch/namespaces/ns/pods', true],
    ['GET', '/api/v1/proxy/namespaces/ns/pods/p', true],
    ['POST', '/api/v1/namespaces/ns/pods/p/exec', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/attach', true],
    ['POST', '/api/v1/namespaces/ns/pods/p/portforward', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/proxy/some/path', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/log?follow=true', true],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', false],
    ['GET', '/api/v1/namespaces/ns/pods/p/log?follow=false', false],
    ['GET', '/api/v1/pods', false],
    ['GET', '/api/v1/namespaces/ns/pods/p/status', false],
    ['GET', '/healthz', false],
    // a non-resource path called .../exec is not an exec
    ['GET', '/foo/bar/exec', false],
  ];
  for (const [method, url, expected] of cases) {
    it(`${method} ${url} -> ${expected}`, () => {
      const q = url.indexOf('?');
      const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
      assert.equal(isLongRunning(parse(method, url), query), expected);
    });
  }
});
