/**
 * multipart/byteranges (RFC 9110 §14.6) and Vary (RFC 9110 §12.5.5).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultiValueHeaders } from '../../src/http/headers.js';
import { buildByteRanges, byteRangesLayout, newBoundary } from '../../src/http/multipart.js';
import { addVary, VaryMembers } from '../../src/http/vary.js';

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

  it('adds a fixed list of names as addVary would, name by name, line after line', () => {
    const members = new VaryMembers(['Authorization', 'Origin']);
    const none = new MultiValueHeaders();
    members.addTo(none);
    expect(none.getAll('vary')).toEqual(['Authorization, Origin']);
    for (let i = 0; i < 2; i++) {
      // The second time the merged line comes from what the first one remembered.
      const accept = new MultiValueHeaders({ Vary: 'Accept' });
      members.addTo(accept);
      expect(accept.getAll('vary')).toEqual(['Accept, Authorization, Origin']);
    }
    const listed = new MultiValueHeaders({ Vary: 'origin' });
    members.addTo(listed);
    expect(listed.getAll('vary')).toEqual(['origin, Authorization']);
    const star = new MultiValueHeaders({ Vary: '*' });
    members.addTo(star);
    expect(star.getAll('vary')).toEqual(['*']);
    const twice = new VaryMembers(['Origin', 'Authorization', 'origin']);
    expect(twice.names).toEqual(['Origin', 'Authorization']);
    const two = new MultiValueHeaders({ Vary: ['Accept', 'Origin'] });
    members.addTo(two);
    expect(two.getAll('vary')).toEqual(['Accept', 'Origin', 'Authorization']);
  });

  it('gives the lines addVary gives, for any lines a handler set', () => {
    const name = fc.constantFrom('Accept', 'accept', 'Origin', 'Authorization', 'Cookie', '*');
    const line = fc.array(name, { maxLength: 4 }).map((names) => names.join(', '));
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 3 }),
        fc.uniqueArray(name, { minLength: 1, maxLength: 3, selector: (n) => n.toLowerCase() }),
        (lines, names) => {
          const members = new VaryMembers(names.filter((n) => n !== '*'));
          if (members.names.length === 0) return;
          const viaMembers = new MultiValueHeaders({ Vary: lines });
          const oneByOne = new MultiValueHeaders({ Vary: lines });
          members.addTo(viaMembers);
          // Twice: the remembered merge must give the same line as the first.
          const again = new MultiValueHeaders({ Vary: lines });
          members.addTo(again);
          for (const n of members.names) addVary(oneByOne, n);
          expect(viaMembers.getAll('vary')).toEqual(oneByOne.getAll('vary'));
          expect(again.getAll('vary')).toEqual(oneByOne.getAll('vary'));
        },
      ),
    );
  });
});
