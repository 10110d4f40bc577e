/**
 * The benchmark harness's pure parts: statistics, ratios, target checks, tables, option and
 * wrk output parsing. No benchmark runs here and no timing is asserted.
 */
import { describe, expect, it } from 'vitest';
import { parseOptions, SECTION_NAMES } from '../../bench/lib/options.js';
import { evaluateTargets, newReport, type Scenario } from '../../bench/lib/report.js';
import { rotation } from '../../bench/lib/rounds.js';
import { median, pairedRatio, quantile, roundRatios, summarize } from '../../bench/lib/stats.js';
import {
  formatNumber,
  formatRatio,
  markdownTable,
  renderSection,
  summaryTable,
  targetsTable,
} from '../../bench/lib/table.js';
import { parseWrk } from '../../bench/lib/wrk.js';

describe('statistics', () => {
  it('takes the median of odd and even counts, whatever the order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('interpolates quantiles between ranks', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([1, 2], 0.5)).toBe(1.5);
    expect(quantile([7], 0.9)).toBe(7);
  });

  it('summarises spread', () => {
    expect(summarize([5, 1, 9])).toMatchObject({ median: 5, min: 1, max: 9, count: 3 });
  });

  it('pairs ratios round by round, so drift that hits both sides cancels', () => {
    // Round 2 ran twice as slow for everyone: per-round ratios stay 0.5.
    expect(pairedRatio([1, 2, 1], [2, 4, 2])).toBe(0.5);
    // Ratio of medians (1/2) would say the same here, but not when the rounds disagree:
    expect(pairedRatio([1, 10, 1], [2, 2, 2])).toBe(0.5);
    expect(pairedRatio([1, 1], [2, 2, 2])).toBe(0.5);
    expect(pairedRatio([], [1])).toBeNaN();
    expect(roundRatios([1, 3, 2], [2, 2, 4])).toEqual([0.5, 1.5, 0.5]);
    expect(roundRatios([1, 1], [2, 2, 2])).toEqual([]);
    expect(roundRatios([], [])).toEqual([]);
  });
});

describe('rotation', () => {
  it('moves the first contender to the back each round', () => {
    expect(rotation(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(rotation(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(rotation(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
    expect(rotation([], 3)).toEqual([]);
  });
});

function scenario(samples: Record<string, number[]>, higherIsBetter = true): Scenario {
  return {
    name: 'S',
    unit: 'req/s',
    higherIsBetter,
    subject: 'restmachine',
    measurements: Object.entries(samples).map(([contender, values]) => ({
      contender,
      samples: values,
    })),
  };
}

describe('targets', () => {
  it('marks at-least, at-most and within targets met or missed', () => {
    const report = newReport('x', 'X');
    report.scenarios.push(
      scenario({ restmachine: [110, 100, 105], fastify: [100, 100, 100], raw: [200, 200, 200] }),
    );
    evaluateTargets(report, [
      { label: 'a', scenario: 'S', peer: 'fastify', comparator: 'at-least', bound: 1 },
      { label: 'b', scenario: 'S', peer: 'raw', comparator: 'at-least', bound: 0.9 },
      { label: 'c', scenario: 'S', peer: 'raw', comparator: 'at-most', bound: 0.6 },
      { label: 'd', scenario: 'S', peer: 'fastify', comparator: 'within', bound: 0.1 },
      { label: 'e', scenario: 'S', peer: 'fastify', comparator: 'within', bound: 0.01 },
    ]);
    expect(report.targets.map((t) => t.met)).toEqual([true, false, true, true, false]);
    expect(report.targets[0]?.ratio).toBeCloseTo(1.05);
  });

  it('keeps the ratio of every round and counts the rounds that meet the target alone', () => {
    const report = newReport('x', 'X');
    report.scenarios.push(
      scenario({ restmachine: [96, 104, 101, 99, 103], fastify: [100, 100, 100, 100, 100] }),
    );
    evaluateTargets(report, [
      { label: 'a', scenario: 'S', peer: 'fastify', comparator: 'at-least', bound: 1 },
      { label: 'b', scenario: 'S', peer: 'fastify', comparator: 'at-most', bound: 0.98 },
    ]);
    const [atLeast, atMost] = report.targets;
    expect(atLeast?.rounds).toEqual([0.96, 1.04, 1.01, 0.99, 1.03]);
    expect(atLeast?.ratio).toBeCloseTo(1.01);
    expect(atLeast?.met).toBe(true);
    expect(atLeast?.roundsMet).toBe(3);
    expect(atMost?.met).toBe(false);
    expect(atMost?.roundsMet).toBe(1);
  });

  it('reports a target as not measured when a side has no samples', () => {
    const report = newReport('x', 'X');
    report.scenarios.push(scenario({ restmachine: [1, 1, 1], fastify: [] }));
    evaluateTargets(report, [
      { label: 'a', scenario: 'S', peer: 'fastify', comparator: 'at-least', bound: 1 },
      { label: 'b', scenario: 'missing', peer: 'fastify', comparator: 'at-least', bound: 1 },
    ]);
    expect(report.targets.map((t) => t.met)).toEqual([undefined, undefined]);
    expect(report.targets.map((t) => t.rounds)).toEqual([[], []]);
    expect(targetsTable(report.targets)).toContain(
      '| a | restmachine ÷ fastify ≥ 1× | n/a | — | not measured |',
    );
  });
});

describe('tables', () => {
  it('formats numbers to about three significant digits', () => {
    expect(formatNumber(123456.7)).toBe('123,457');
    expect(formatNumber(123.4)).toBe('123');
    expect(formatNumber(12.34)).toBe('12.3');
    expect(formatNumber(1.234)).toBe('1.23');
    expect(formatNumber(0.01234)).toBe('0.0123');
    expect(formatNumber(Number.NaN)).toBe('n/a');
    expect(formatRatio(0.456)).toBe('0.46×');
    expect(formatRatio(12.34)).toBe('12.3×');
  });

  it('keeps every row on one line and escapes pipes', () => {
    const table = markdownTable(['a', 'b'], [['x|y', 'line one\n  line two']]);
    expect(table.split('\n')).toEqual([
      '| a | b |',
      '|:---|---:|',
      '| x\\|y | line one line two |',
    ]);
  });

  it('renders medians, spread, ratios and the targets of a section', () => {
    const report = newReport('x', 'Example');
    report.scenarios.push(scenario({ restmachine: [100, 120, 110], fastify: [50, 60, 55] }));
    evaluateTargets(report, [
      { label: 'twice Fastify', scenario: 'S', peer: 'fastify', comparator: 'at-least', bound: 2 },
    ]);
    const text = renderSection(report);
    expect(text).toContain('| restmachine | 110 | 100–120 | — |');
    expect(text).toContain('| fastify | 55.0 | 50.0–60.0 | 2.00× |');
    expect(text).toContain(
      '| twice Fastify | restmachine ÷ fastify ≥ 2× | 2.00× | 2.00×–2.00×, 3 of 3 met | met |',
    );
  });
});

describe('summary', () => {
  it('puts every contender of a section in a column, blank where a scenario lacks it', () => {
    const report = newReport('x', 'X');
    report.scenarios.push(scenario({ restmachine: [1, 2, 3], fastify: [4, 5, 6] }));
    report.scenarios.push({ ...scenario({ restmachine: [7, 8, 9], raw: [] }), name: 'T' });
    expect(summaryTable(report).split('\n')).toEqual([
      '| Scenario | Unit | restmachine | fastify | raw |',
      '|:---|:---|---:|---:|---:|',
      '| S | req/s | 2.00 | 5.00 |  |',
      '| T | req/s | 8.00 |  | n/a |',
    ]);
  });
});

describe('options', () => {
  it('runs every section by default with at least three rounds', () => {
    const options = parseOptions([], {});
    expect(options).not.toBe('help');
    if (options === 'help') return;
    expect(options.sections).toEqual([...SECTION_NAMES]);
    expect(options.rounds).toBe(3);
    expect(options.wrkSeconds).toBe(5);
  });

  it('takes sections in run order, aliases, flags and variables', () => {
    const options = parseOptions(['static', 'cold', '--duration', '9', '--time=500'], {
      BENCH_ROUNDS: '4',
    });
    if (options === 'help') throw new Error('unexpected help');
    expect(options.sections).toEqual(['cold-start', 'static']);
    expect(options.wrkSeconds).toBe(9);
    expect(options.inProcessMs).toBe(500);
    expect(options.rounds).toBe(4);
  });

  it('rejects unknown sections, unknown options, bad numbers and fewer than three rounds', () => {
    expect(() => parseOptions(['nope'], {})).toThrow(/Unknown section/);
    expect(() => parseOptions(['--fast'], {})).toThrow(/Unknown option/);
    expect(() => parseOptions(['--duration', 'x'], {})).toThrow(/positive number/);
    expect(() => parseOptions(['--duration'], {})).toThrow(/needs a value/);
    expect(() => parseOptions(['--rounds', '2'], {})).toThrow(/at least 3/);
    expect(parseOptions(['--help'], {})).toBe('help');
  });
});

describe('wrk output', () => {
  const output = `Running 5s test @ http://127.0.0.1:4000/
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.10ms  301.00us   8.00ms   90.00%
    Req/Sec    23.9k     1.2k    25.0k    80.00%
  118958 requests in 5.00s, 20.31MB read
Requests/sec:  23791.60
Transfer/sec:      4.06MB
`;

  it('reads the rate, the transfer rate and the request count', () => {
    const result = parseWrk(output);
    expect(result.requestsPerSecond).toBe(23791.6);
    expect(result.megabytesPerSecond).toBeCloseTo((4.06 * 1024 * 1024) / 1e6);
    expect(result.requests).toBe(118958);
    expect(result.errors).toBe(0);
  });

  it('counts bad statuses, socket errors and empty runs as errors', () => {
    const bad = parseWrk(
      output.replace(
        'Requests/sec',
        '  Socket errors: connect 0, read 2, write 0, timeout 3\n  Non-2xx or 3xx responses: 7\nRequests/sec',
      ),
    );
    expect(bad.errors).toBe(12);
    expect(bad.errorText).toContain('7 non-2xx');
    const empty = parseWrk(output.replace('118958 requests', '0 requests'));
    expect(empty.errors).toBe(1);
    expect(() => parseWrk('wrk: connection refused')).toThrow(/Unexpected wrk output/);
  });
});
