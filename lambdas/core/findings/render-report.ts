import type { Finding } from './finding';
import { SEVERITIES, type Severity } from '../model';
import { sanitizeLine, truncate } from '../common/sanitize';
import { detailParts, stepKind, stepTitle } from '../notice/text';

/** What a report shows: the findings of one analysis and what it read. */
export interface Report {
  findings: Finding[];
  records: number;
  malformed: number;
  /** Names of the inputs read. */
  inputs: string[];
  /** Failure-shaped lines no rule recognised, with their most frequent messages. */
  unrecognised?: { count: number; top: ReadonlyArray<{ message: string; count: number }> };
}

// ---------------------------------------------------------------------------------------------
// Markdown: for a ticket or a GitHub issue.

/**
 * The report in GitHub-flavoured Markdown: a summary table, then each finding with why, the fix
 * commands in shell blocks and the evidence in a folded block. Text from logs is sanitised, and
 * escaped so that it can neither format nor inject HTML; code blocks use a fence longer than any
 * backtick run inside them.
 */
export function renderMarkdown(report: Report): string {
  const { findings } = report;
  const out: string[] = [`## karpenter-doctor: ${summaryOf(report)}`, ''];
  if (report.inputs.length) out.push(`Read: ${report.inputs.map(mdCode).join(', ')}`, '');
  if (findings.length === 0) return `${[...out, ...unrecognisedMarkdown(report)].join('\n')}\n`;
  out.push(
    '| severity | finding | rule | occurrences | first seen | last seen |',
    '| --- | --- | --- | ---: | --- | --- |',
  );
  for (const f of findings) {
    out.push(
      `| **${f.severity}** | ${md(f.title)} | ${mdCode(f.rule)} | ${f.occurrences} | ${f.firstSeen ?? ''} | ${f.lastSeen ?? ''} |`,
    );
  }
  for (const f of findings) {
    out.push('', `### ${f.severity.toUpperCase()}: ${md(f.title)} (${mdCode(f.rule)})`, '');
    out.push(
      `- **Cluster:** ${mdCode(f.cluster)}, ${f.occurrences} occurrence${f.occurrences === 1 ? '' : 's'}${whenOf(f)}`,
    );
    for (const [name, values] of whereOf(f)) out.push(`- **${name}:** ${values.map(mdCode).join(', ')}`);
    out.push('', `**Why.** ${md(clean(f.diagnosis, 2000))}`, '', '**Fix.**', '');
    f.remediation.forEach((step, index) => {
      const kind = stepKind(step);
      const [first, ...rest] = detailParts(step.detail);
      const lead = first?.kind === 'prose' ? `: ${md(clean(first.text, 2000))}` : '';
      out.push(`${index + 1}. ${kind ? `[${kind}] ` : ''}**${md(stepTitle(step))}**${lead}`);
      // YAML and JSON blocks stay blocks, line for line: flattened, the pasted fix is invalid.
      for (const part of first?.kind === 'prose' ? rest : [first!, ...rest].filter(Boolean)) {
        if (part.kind === 'block') out.push('', ...fenced(cleanBlock(part.text), blockLanguage(part.text), '   '), '');
        else out.push('', `   ${md(clean(part.text, 2000))}`);
      }
      if (step.commands.length) out.push('', ...fenced(step.commands.join('\n'), 'sh', '   '), '');
    });
    if (f.evidence.length) {
      out.push('', '<details><summary>Evidence</summary>', '');
      const lines = f.evidence.map(
        (e) =>
          `${[e.timestamp, e.file && e.line ? `${e.file}:${e.line}` : e.logStream].filter(Boolean).join(' ')} ${e.message}`,
      );
      out.push(...fenced(clean(lines.join('\n'), 4000, true), 'text'), '', '</details>');
    }
    if (f.docs.length) out.push('', `Docs: ${f.docs.filter(isWebLink).join(' · ')}`);
  }
  if (report.unrecognised?.count) out.push('');
  return `${[...out, ...unrecognisedMarkdown(report)].join('\n')}\n`;
}

function unrecognisedMarkdown(report: Report): string[] {
  const unrecognised = report.unrecognised;
  if (!unrecognised?.count) return [];
  const lines = unrecognised.top.map((t) => `${t.count}× ${clean(t.message, 1000)}`).join('\n');
  return [
    `### ${unrecognised.count} unrecognised error line${unrecognised.count === 1 ? '' : 's'}`,
    '',
    'Lines that look like failures but that no rule recognises (most frequent first); nothing is concluded from them.',
    '',
    ...fenced(lines, 'text'),
  ];
}

/** Characters that format in Markdown or open HTML, escaped with a backslash. */
function md(text: string): string {
  return text.replace(/[\\`*_{}[\]<>()#+!|~&]/g, '\\$&').replace(/\n/g, ' ');
}

/** Inline code that holds any text: the fence is longer than the longest backtick run inside. */
function mdCode(text: string): string {
  const value = clean(text, 300);
  const longest = Math.max(0, ...[...value.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value.replace(/\|/g, '\\|')}${pad}${fence}`;
}

function fenced(text: string, language: string, indent = ''): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${language}`, ...text.split('\n'), fence].map((line) => `${indent}${line}`);
}

// ---------------------------------------------------------------------------------------------
// HTML: one self-contained file.

const COLOURS: Record<Severity, string> = { critical: '#b91c1c', high: '#ea580c', medium: '#ca8a04', low: '#0e7490' };

/**
 * The report as one self-contained HTML page: no script, no external resource (a content security
 * policy forbids both), every text from logs escaped. A timeline shows each rule's incidents over
 * the time the input covers; each finding follows with why, the fix commands and the evidence.
 */
export function renderHtml(report: Report): string {
  const { findings } = report;
  const counts = SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length] as const).filter(
    ([, n]) => n > 0,
  );
  const body = [
    `<header><h1>karpenter-doctor report</h1><p class="summary">${esc(summaryOf(report))}</p>`,
    `<p class="badges">${counts.map(([s, n]) => `<span class="badge ${s}">${n} ${s}</span>`).join(' ')}</p>`,
    report.inputs.length
      ? `<p class="inputs">Read: ${report.inputs.map((i) => `<code>${esc(clean(i, 300))}</code>`).join(', ')}</p>`
      : '',
    '</header>',
    findings.length
      ? timeline(findings)
      : '<p class="none">No findings: nothing in the input shows Karpenter failing to scale.</p>',
    ...findings.map(findingSection),
    unrecognisedHtml(report),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>karpenter-doctor report</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function timeline(findings: Finding[]): string {
  const times = findings
    .flatMap((f) => [f.firstSeen, f.lastSeen])
    .filter((t): t is string => Boolean(t))
    .map(Date.parse);
  const rules = [...new Set(findings.map((f) => f.rule))];
  if (times.length === 0) {
    return '<section class="timeline"><h2>Timeline</h2><p class="none">The input has no timestamps.</p></section>';
  }
  const start = Math.min(...times);
  const end = Math.max(...times);
  const span = Math.max(end - start, 1);
  const at = (time: string | null) => (time ? ((Date.parse(time) - start) / span) * 100 : 0);
  const rows = rules.map((rule) => {
    const bars = findings
      .filter((f) => f.rule === rule)
      .map((f) => {
        const left = at(f.firstSeen);
        const width = Math.max(at(f.lastSeen ?? f.firstSeen) - left, 0);
        const label = `${f.title}: ${f.occurrences} occurrence${f.occurrences === 1 ? '' : 's'}, ${f.firstSeen ?? '?'} → ${f.lastSeen ?? '?'}`;
        return `<span class="bar ${f.severity}" style="left:${left.toFixed(2)}%;width:${width.toFixed(2)}%" title="${esc(clean(label, 400))}"></span>`;
      })
      .join('');
    return `<div class="row"><a class="rule" href="#${esc(rule)}">${esc(rule)}</a><div class="track">${bars}</div></div>`;
  });
  return `<section class="timeline"><h2>Timeline</h2>
<div class="axis"><span>${esc(new Date(start).toISOString())}</span><span>${esc(new Date(end).toISOString())}</span></div>
${rows.join('\n')}
</section>`;
}

function findingSection(f: Finding): string {
  const where = whereOf(f)
    .map(
      ([name, values]) =>
        `<dt>${esc(name)}</dt><dd>${values.map((v) => `<code>${esc(clean(v, 300))}</code>`).join(' ')}</dd>`,
    )
    .join('');
  const steps = f.remediation
    .map((step) => {
      const kind = stepKind(step);
      const detail = detailParts(step.detail)
        .map((part) =>
          part.kind === 'block'
            ? `<pre class="block"><code>${esc(cleanBlock(part.text))}</code></pre>`
            : `<p>${esc(clean(part.text, 2000))}</p>`,
        )
        .join('');
      return `<li>${kind ? `<span class="kind">${kind}</span> ` : ''}<strong>${esc(stepTitle(step))}</strong>${detail}${
        step.commands.length ? `<pre><code>${step.commands.map((c) => `$ ${esc(c)}`).join('\n')}</code></pre>` : ''
      }</li>`;
    })
    .join('');
  const evidence = f.evidence
    .map((e) => {
      const at = [e.timestamp, e.file && e.line ? `${e.file}:${e.line}` : e.logStream].filter(Boolean).join(' ');
      return `<pre class="evidence"><span class="at">${esc(clean(at, 300))}</span> ${esc(clean(e.message, 1000, true))}</pre>`;
    })
    .join('');
  const docs = f.docs
    .filter(isWebLink)
    .map((url) => `<a href="${esc(url)}">${esc(url)}</a>`)
    .join(' · ');
  return `<section class="finding ${f.severity}" id="${esc(f.rule)}">
<h2><span class="badge ${f.severity}">${f.severity.toUpperCase()}</span> ${esc(f.title)} <code class="rule-id">${esc(f.rule)}</code></h2>
<p class="meta">cluster <code>${esc(clean(f.cluster, 200))}</code> · ${f.occurrences} occurrence${f.occurrences === 1 ? '' : 's'}${esc(whenOf(f))} · ${esc(f.status)}</p>
${where ? `<dl>${where}</dl>` : ''}
<h3>Why</h3><p>${esc(clean(f.diagnosis, 2000))}</p>
<h3>Fix</h3><ol>${steps}</ol>
${evidence ? `<h3>Evidence</h3>${evidence}` : ''}
${docs ? `<p class="docs">Docs: ${docs}</p>` : ''}
</section>`;
}

function unrecognisedHtml(report: Report): string {
  const unrecognised = report.unrecognised;
  if (!unrecognised?.count) return '';
  const rows = unrecognised.top
    .map((t) => `<tr><td class="count">${t.count}</td><td><code>${esc(clean(t.message, 1000))}</code></td></tr>`)
    .join('');
  return `<section class="unrecognised"><h2>${unrecognised.count} unrecognised error line${unrecognised.count === 1 ? '' : 's'}</h2>
<p class="meta">Lines that look like failures but that no rule recognises, most frequent first; nothing is concluded from them.</p>
<table>${rows}</table></section>`;
}

/** HTML-escapes text for element content and quoted attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#f8fafc}
body{max-width:1100px;margin:0 auto;padding:24px}
h1{margin:0 0 4px;font-size:26px}h2{font-size:19px;margin:0 0 8px}h3{font-size:14px;margin:14px 0 4px;text-transform:uppercase;letter-spacing:.04em;color:#475569}
header{margin-bottom:20px}.summary{margin:0 0 8px;font-size:16px}.inputs{color:#475569;font-size:13px}
.badge{display:inline-block;padding:2px 8px;border-radius:4px;color:#fff;font-size:12px;font-weight:700;vertical-align:middle}
.badge.critical{background:${COLOURS.critical}}.badge.high{background:${COLOURS.high}}.badge.medium{background:${COLOURS.medium}}.badge.low{background:${COLOURS.low}}
section{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:16px 20px;margin:0 0 16px}
.finding{border-left:6px solid #94a3b8}.finding.critical{border-left-color:${COLOURS.critical}}.finding.high{border-left-color:${COLOURS.high}}.finding.medium{border-left-color:${COLOURS.medium}}.finding.low{border-left-color:${COLOURS.low}}
.timeline .row{display:flex;align-items:center;margin:6px 0}.timeline .rule{width:280px;flex:none;font:12px ui-monospace,monospace;color:#334155;text-decoration:none}
.track{position:relative;flex:1;height:16px;background:#f1f5f9;border-radius:3px}
.bar{position:absolute;top:2px;height:12px;min-width:6px;border-radius:3px}
.bar.critical{background:${COLOURS.critical}}.bar.high{background:${COLOURS.high}}.bar.medium{background:${COLOURS.medium}}.bar.low{background:${COLOURS.low}}
.axis{display:flex;justify-content:space-between;margin-left:280px;font:11px ui-monospace,monospace;color:#64748b}
.meta{color:#475569;font-size:13px}.rule-id{font-size:13px;color:#64748b;font-weight:400}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:13px}dt{color:#64748b}dd{margin:0}
pre{background:#0f172a;color:#e2e8f0;padding:10px 12px;border-radius:6px;overflow-x:auto;font-size:12px;white-space:pre-wrap;word-break:break-all}
pre.evidence{background:#f1f5f9;color:#334155}.at{color:#64748b}
ol{padding-left:20px}li p{margin:2px 0 6px;font-size:13px;color:#475569}.action{font-size:12px;color:#64748b}
.unrecognised table{border-collapse:collapse;font-size:12px}.unrecognised td{padding:2px 8px;vertical-align:top}.count{text-align:right;color:#64748b}
.docs{font-size:12px}.docs a{color:#2563eb}.none{color:#475569}
.kind{font-size:11px;color:#475569;border:1px solid #cbd5e1;border-radius:3px;padding:0 4px}pre.block{white-space:pre;word-break:normal}
@media (max-width:640px){body{padding:8px}section{padding:12px}.timeline .row{flex-direction:column;align-items:stretch}.timeline .rule{width:auto;margin-bottom:2px}.track{width:100%}.axis{margin-left:0;flex-direction:column}dl{grid-template-columns:1fr}}
`;

// ---------------------------------------------------------------------------------------------

function summaryOf(report: Report): string {
  const { findings } = report;
  const counts = SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  const found =
    findings.length === 0
      ? 'no findings'
      : `${findings.length} finding${findings.length === 1 ? '' : 's'} (${counts.join(', ')})`;
  const bad =
    report.malformed > 0 ? `; ${report.malformed} malformed record${report.malformed === 1 ? '' : 's'} skipped` : '';
  return `${found} in ${report.records} record${report.records === 1 ? '' : 's'}${bad}`;
}

function whenOf(f: Finding): string {
  if (!f.firstSeen) return '';
  return !f.lastSeen || f.lastSeen === f.firstSeen ? `, at ${f.firstSeen}` : `, ${f.firstSeen} → ${f.lastSeen}`;
}

/** The entities worth naming, as (label, values). */
function whereOf(f: Finding): Array<[string, string[]]> {
  const e = f.entities;
  const parts: Array<[string, string[] | undefined]> = [
    ['Subnets', e.subnets],
    ['Zones', e.zones],
    ['Node pools', e.nodepools],
    ['Node classes', e.nodeclasses],
    ['Instance types', e.instanceTypes],
    ['Workloads', e.workloads],
    ['Pods', e.workloads?.length ? undefined : e.pods],
    ['Nodes', e.nodes],
    ['Taints', e.taints],
    ['Volumes', e.volumes],
    ['PDBs', e.pdbs],
    ['Quotas', e.quotas],
    ['IAM actions', e.iamActions],
  ];
  return parts
    .filter((part): part is [string, string[]] => Boolean(part[1]?.length))
    .map(([name, values]) => [
      name,
      values.length > 8 ? [...values.slice(0, 8), `+${values.length - 8} more`] : values,
    ]);
}

/** The fence language of a block: JSON when it opens with a bracket, YAML otherwise. */
const blockLanguage = (text: string): string => (/^\s*[[{]/.test(text) ? 'json' : 'yaml');

const isWebLink = (url: string): boolean => /^https:\/\/[^\s"'<>]+$/.test(url);

/** Sanitised log text (control characters and secrets removed, cut); line breaks kept when asked. */
function clean(text: string, max: number, keepLines = false): string {
  return keepLines
    ? text
        .split('\n')
        .map((line) => sanitizeLine(line, max))
        .join('\n')
    : sanitizeLine(text, max);
}

/** A YAML or JSON block, sanitised line by line with its indentation kept (YAML means it). */
function cleanBlock(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      truncate(line.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, ''), 1000),
    )
    .join('\n');
}
