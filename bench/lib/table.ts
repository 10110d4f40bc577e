/**
 * Markdown tables for the console and the result files: medians, spread and the ratio of the
 * subject to each peer, then the targets marked met or missed.
 */
import type { Scenario, SectionReport, TargetResult } from './report.js';
import { median, pairedRatio, summarize } from './stats.js';

/** A number with about three significant digits, grouped by thousands when large. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  if (magnitude === 0) return '0';
  return value.toPrecision(3);
}

export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/** A markdown table; `align` holds 'l' or 'r' per column. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: string = `l${'r'.repeat(header.length - 1)}`,
): string {
  // One line per row: newlines (wrk's usage text, stack traces) would break the table.
  const cellText = (cell: string): string => cell.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');
  const lines = [
    `| ${header.map(cellText).join(' | ')} |`,
    `|${header.map((_, i) => (align[i] === 'r' ? '---:' : ':---')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(cellText).join(' | ')} |`),
  ];
  return lines.join('\n');
}

function shorten(text: string, length = 240): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** One scenario: a row per contender with median, min–max and the subject ÷ contender ratio. */
export function scenarioTable(scenario: Scenario): string {
  const subject = scenario.measurements.find((m) => m.contender === scenario.subject);
  const better = scenario.higherIsBetter ? 'higher is better' : 'lower is better';
  const alternate = scenario.alternateLabel;
  const rows = scenario.measurements.map((measurement) => {
    const extra =
      alternate === undefined
        ? []
        : [measurement.alternate?.length ? formatNumber(median(measurement.alternate)) : 'n/a'];
    if (measurement.samples.length === 0) {
      return [
        measurement.contender,
        'n/a',
        '',
        '',
        ...extra,
        shorten(measurement.error ?? 'no samples'),
      ];
    }
    const summary = summarize(measurement.samples);
    const ratio =
      measurement === subject || subject === undefined || subject.samples.length === 0
        ? '—'
        : formatRatio(pairedRatio(subject.samples, measurement.samples));
    const spread = `${formatNumber(summary.min)}–${formatNumber(summary.max)}`;
    const note = shorten(measurement.error ?? (summary.count > 1 ? '' : 'one sample'));
    return [measurement.contender, formatNumber(summary.median), spread, ratio, ...extra, note];
  });
  const hasNotes = rows.some((row) => row[row.length - 1] !== '');
  const header = [
    'Contender',
    `Median (${scenario.unit}${scenario.measure ? `, ${scenario.measure}` : ''})`,
    'Min–max',
    `${scenario.subject} ÷ contender`,
    ...(alternate === undefined ? [] : [`${alternate} median`]),
  ];
  const align = `lrrr${alternate === undefined ? '' : 'r'}`;
  return [
    `**${scenario.name}** (${scenario.unit}, ${better})`,
    '',
    markdownTable(
      hasNotes ? [...header, 'Note'] : header,
      rows.map((row) => (hasNotes ? row : row.slice(0, -1))),
      hasNotes ? `${align}l` : align,
    ),
  ].join('\n');
}

function comparatorText(target: TargetResult): string {
  if (target.comparator === 'at-least') return `≥ ${target.bound}×`;
  if (target.comparator === 'at-most') return `≤ ${target.bound}×`;
  return `within ±${Math.round(target.bound * 100)}%`;
}

/** The per-round ratios' range and how many rounds met the target alone: the run's noise. */
function roundsText(target: TargetResult): string {
  if (target.rounds.length === 0) return '—';
  const low = Math.min(...target.rounds);
  const high = Math.max(...target.rounds);
  return `${formatRatio(low)}–${formatRatio(high)}, ${target.roundsMet} of ${target.rounds.length} met`;
}

export function targetsTable(targets: readonly TargetResult[]): string {
  const rows = targets.map((target) => [
    target.label,
    `${target.subject ?? 'restmachine'} ÷ ${target.peer} ${comparatorText(target)}`,
    formatRatio(target.ratio),
    roundsText(target),
    target.met === undefined ? 'not measured' : target.met ? 'met' : '**missed**',
  ]);
  return markdownTable(
    ['Target', 'Ratio wanted', 'Measured', 'Single rounds', 'Result'],
    rows,
    'llrll',
  );
}

/** The whole section as markdown: method, one table per scenario, targets, extras, notes. */
export function renderSection(report: SectionReport): string {
  const parts: string[] = [`## ${report.title}`];
  if (report.method.length > 0) parts.push(report.method.map((line) => `- ${line}`).join('\n'));
  for (const scenario of report.scenarios) parts.push(scenarioTable(scenario));
  if (report.targets.length > 0) parts.push(`**Targets**\n\n${targetsTable(report.targets)}`);
  parts.push(...report.extra);
  if (report.skipped.length > 0) {
    parts.push(`**Skipped**\n\n${report.skipped.map((reason) => `- ${reason}`).join('\n')}`);
  }
  if (report.notes.length > 0) {
    parts.push(`**Notes**\n\n${report.notes.map((note) => `- ${note}`).join('\n')}`);
  }
  if (report.profiles.length > 0) {
    parts.push(
      '**CPU profiles of restmachine for the missed targets** (self time)',
      ...report.profiles,
    );
  }
  return parts.join('\n\n');
}

/** One row per scenario, one column per contender: the medians of a section at a glance. */
export function summaryTable(report: SectionReport): string {
  const contenders: string[] = [];
  for (const scenario of report.scenarios) {
    for (const measurement of scenario.measurements) {
      if (!contenders.includes(measurement.contender)) contenders.push(measurement.contender);
    }
  }
  const rows = report.scenarios.map((scenario) => [
    scenario.name,
    scenario.unit,
    ...contenders.map((contender) => {
      const samples = scenario.measurements.find((m) => m.contender === contender)?.samples;
      return samples === undefined
        ? ''
        : samples.length === 0
          ? 'n/a'
          : formatNumber(median(samples));
    }),
  ]);
  return markdownTable(
    ['Scenario', 'Unit', ...contenders],
    rows,
    `ll${'r'.repeat(contenders.length)}`,
  );
}
