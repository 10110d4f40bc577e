/**
 * multipart/byteranges (RFC 9110 §14.6) and Vary (RFC 9110 §12.5.5).
 */
import { describe, expect, it } from 'vitest';
import { MultiValueHeaders } from '../../src/http/headers.js';
import { buildByteRanges, byteRangesLayout, newBoundary } from '../../src/http/multipart.js';
import { addVary } from '../../src/http/vary.js';

describe('multipart/byteranges', () => {
  it('lays out parts with their own Content-Type and Content-Range and an exact length', () => {
    const bytes = new TextEncoder().encode('0123456789');
    const ranges = [
      { start: 0, end: 1 },
      { start: 7, end: 9 },
    ];
    const layout = byteRangesLayout(ranges, 10, 'text/plain', 'BOUNDARY');
    expect(layout.contentType).toBe('multipart/byteranges; boundary=BOUNDARY');
    const body = buildByteRanges(bytes, ranges, layout);
    expect(new TextDecoder().decode(body)).toBe(
      '--BOUNDARY\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\n01' +
        '\r\n--BOUNDARY\r\nContent-Type: text/plain\r\nContent-Range: bytes 7-9/10\r\n\r\n789' +
        '\r\n--BOUNDARY--\r\n',
    );
    expect(body.length).toBe(layout.length);
  });

  it('leaves out Content-Type in the parts when the representation has none', () => {
    const layout = byteRangesLayout([{ start: 0, end: 0 }], 1, undefined, 'B');
    expect(layout.heads[0]).toBe('--B\r\nContent-Range: bytes 0-0/1\r\n\r\n');
  });

  it('makes a fresh unguessable boundary each time', () => {
    const a = newBoundary();
    expect(a).toMatch(/^restmachine-[0-9a-f]{32}$/);
    expect(newBoundary()).not.toBe(a);
  });
});

describe('Vary', () => {
  it('adds a field once, whatever the case and however many lines there are', () => {
    const headers = new MultiValueHeaders({ Vary: ['Accept', 'accept-encoding, Origin'] });
    addVary(headers, 'origin');
    addVary(headers, 'Accept-Encoding');
    addVary(headers, 'Authorization');
    expect(headers.getAll('vary')).toEqual(['Accept', 'accept-encoding, Origin', 'Authorization']);
  });

  it('extends a single field line instead of adding another', () => {
    const headers = new MultiValueHeaders({ Vary: 'Accept' });
    addVary(headers, 'Authorization');
    addVary(headers, 'Origin');
    addVary(headers, 'ORIGIN');
    expect(headers.getAll('vary')).toEqual(['Accept, Authorization, Origin']);
  });

  it('finds members between any spaces and tabs, and * anywhere', () => {
    const headers = new MultiValueHeaders({ Vary: ' Accept ,\tOrigin\t, *' });
    addVary(headers, 'Cookie');
    expect(headers.getAll('vary')).toEqual([' Accept ,\tOrigin\t, *']);
    const listed = new MultiValueHeaders({ Vary: 'Accept,Origin' });
    addVary(listed, 'origin');
    addVary(listed, 'accept');
    expect(listed.getAll('vary')).toEqual(['Accept,Origin']);
  });

  it('adds nothing to Vary: *', () => {
    const headers = new MultiValueHeaders({ Vary: '*' });
    addVary(headers, 'Origin');
    expect(headers.getAll('vary')).toEqual(['*']);
  });
});
