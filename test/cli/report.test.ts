import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { decodePng } from '../support/png';

const EXAMPLES = [
  'examples/karpenter-controller.log',
  'examples/kubernetes-events.jsonl',
  'examples/awslogs-event.json',
];
/** A failure line that also tries to format, inject HTML and close code fences. */
const HOSTILE =
  'no subnets found for nodeclass <script>document.title="pwned"</script><img src=x onerror=alert(1)> **bold** | a | ``` `';

const readStdin = () => `${HOSTILE}\n`;

describe('karpenter-doctor analyze --format markdown', () => {
  it('prints a summary table and each finding with its commands', async () => {
    const { code, stdout } = await runCli(['analyze', '--format', 'markdown', '--cluster', 'demo', ...EXAMPLES]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^## karpenter-doctor: 7 findings \(2 critical, 3 high, 1 medium, 1 low\) in 2047 records\n/,
    );
    expect(stdout).toContain('| **critical** | Subnets are out of free IP addresses | `subnet-ip-exhaustion` | 14 |');
    expect(stdout).toMatch(/### CRITICAL: Subnets are out of free IP addresses/);
    expect(stdout).toMatch(
      /```sh\n {3}aws ec2 describe-subnets --subnet-ids subnet-0a1b2c3d4e5f60718 subnet-0b2c3d4e5f6071829/,
    );
  });

  it('escapes log text: no HTML, no formatting, no fence it can close', async () => {
    const { stdout } = await runCli(['analyze', '--format', 'markdown', '-'], { readStdin });
    // Inside a code block HTML is text; outside one it must not appear at all.
    const outsideCode = stdout.replace(/^(`{3,})[a-z]*\n[\s\S]*?\n\1$/gm, '');
    expect(outsideCode).toContain('<summary>Evidence</summary>');
    expect(outsideCode).not.toMatch(/<script|<img/i);
    const evidence = /<summary>Evidence<\/summary>\n\n(`{4,})text\n([\s\S]*?)\n\1\n/.exec(stdout);
    expect(evidence).not.toBeNull();
    expect(evidence![2]).toContain('``` `');
  });
});

it('lists the unrecognised error lines in both reports', async () => {
  const readStdin = () => '{"level":"ERROR","message":"Reconciler error","error":"frobnicating the widget failed"}\n';
  const markdown = (await runCli(['analyze', '--format', 'markdown', '-'], { readStdin })).stdout;
  expect(markdown).toMatch(/### 1 unrecognised error line\n[\s\S]*1× .*frobnicating the widget failed/);
  const html = (await runCli(['analyze', '--format', 'html', '-'], { readStdin })).stdout;
  expect(html).toMatch(/<h2>1 unrecognised error line<\/h2>[\s\S]*frobnicating the widget failed/);
});

describe('karpenter-doctor analyze --format html', () => {
  it('escapes log text and loads nothing from outside', async () => {
    const { stdout } = await runCli(['analyze', '--format', 'html', '-'], { readStdin });
    expect(stdout).not.toMatch(/<script|<img/i);
    expect(stdout).toContain(
      '&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;',
    );
    expect(stdout).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(stdout).not.toMatch(/(src|href)="(?!https:\/\/|#)/);
  });

  it('shows one timeline row per rule and one section per finding', async () => {
    const { stdout } = await runCli(['analyze', '--format', 'html', ...EXAMPLES]);
    expect(stdout.match(/<div class="row">/g)).toHaveLength(7);
    expect(stdout.match(/<section class="finding /g)).toHaveLength(7);
    expect(stdout).toMatch(/<span class="bar critical" style="left:0\.00%;width:6\.\d\d%"/);
  });
});

/** Chromium from Debian's package (or CHROMIUM); .ci/run installs it and requires this test to run. */
const browser = ['chromium', 'chromium-browser']
  .map((name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim())
  .find(Boolean);
const required = process.env.KARPENTER_DOCTOR_REQUIRE_BROWSER === '1';
const inBrowser = browser || required ? describe : describe.skip;

inBrowser('the HTML report in headless Chromium', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-html-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const chromium = (page: string, ...args: string[]) => {
    expect(browser).toBeDefined();
    const profile = mkdtempSync(join(dir, 'profile-'));
    const result = spawnSync(
      browser!,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
        '--hide-scrollbars',
        ...args,
        `file://${page}`,
      ],
      { encoding: 'utf8', timeout: 90_000 },
    );
    expect(result.status).toBe(0);
    return result.stdout;
  };

  it('renders hostile log text as text: its script never runs', async () => {
    const page = join(dir, 'hostile.html');
    writeFileSync(page, (await runCli(['analyze', '--format', 'html', '-'], { readStdin })).stdout);
    const dom = chromium(page, '--dump-dom');
    expect(dom).toContain('<title>karpenter-doctor report</title>');
    expect(dom).not.toMatch(/<script|<img/i);
    expect(dom).toContain('&lt;script&gt;document.title="pwned"&lt;/script&gt;');
  }, 120_000);

  it('draws the report of the examples: severity colours, timeline and findings (screenshot)', async () => {
    const page = join(dir, 'report.html');
    const png = join(dir, 'report.png');
    writeFileSync(page, (await runCli(['analyze', '--format', 'html', '--cluster', 'demo', ...EXAMPLES])).stdout);
    chromium(page, '--window-size=1280,1800', `--screenshot=${png}`);
    const image = decodePng(readFileSync(png));
    expect([image.width, image.height]).toEqual([1280, 1800]);
    const near = ([r, g, b]: number[], [R, G, B]: number[]) =>
      Math.abs(r! - R!) + Math.abs(g! - G!) + Math.abs(b! - B!) < 30;
    let critical = 0;
    let low = 0;
    let ink = 0;
    for (let y = 0; y < image.height; y += 2) {
      for (let x = 0; x < image.width; x += 2) {
        const pixel = image.rgb(x, y);
        if (near(pixel, [0xb9, 0x1c, 0x1c])) critical++;
        if (near(pixel, [0x0e, 0x74, 0x90])) low++;
        if (!near(pixel, [0xf8, 0xfa, 0xfc]) && !near(pixel, [0xff, 0xff, 0xff])) ink++;
      }
    }
    const sampled = (image.width * image.height) / 4;
    // Critical badges, bars and card borders are red; the low finding's bar and badge are teal.
    expect(critical).toBeGreaterThan(500);
    expect(low).toBeGreaterThan(100);
    expect(ink / sampled).toBeGreaterThan(0.05);
  }, 120_000);
});
