import fc from 'fast-check';
import { fragments } from '../../lambdas/core/classify';
import { ENTITY_GATES, extractEntities, TEXT_PATTERNS } from '../../lambdas/core/entities';
import type { Entities, LogRecord } from '../../lambdas/core/model';
import { parseMessage } from '../../lambdas/core/parse';
import { SubstringMatcher } from '../../lambdas/core/substring-matcher';
import { extractEntities as referenceEntities } from '../support/entities-reference';
import { outageLine, PROJECT_LINES } from '../support/generated-records';

/**
 * The text patterns run only where their anchors say a match can start (issue 17), not over the whole
 * text. These tests hold that to the extractor that ran every gated pattern over the whole text
 * (test/support/entities-reference.ts, kept verbatim): same kinds, in the same order, same values,
 * same caps, on texts built to put every anchor and gate at every place, next to each other, across
 * word boundaries and in every case, and on the project's lines with fresh names. And they check the
 * anchors' own claim, independently of the code that uses them: every match of every pattern starts
 * where one of its anchors says.
 */

/** Every value of every kind, kinds in the order found: what the analysis reads (and prints) from a record. */
const ordered = (entities: Entities) => Object.entries(entities);

/** The gates the classifier hands the extractor: its fragments' and the entity gates, found in one pass. */
const classifierGates = new SubstringMatcher([...new Set([...fragments(), ...ENTITY_GATES])], 3);

const sameAsReference = (record: LogRecord): void => {
  const expected = ordered(referenceEntities(record));
  expect(ordered(extractEntities(record))).toEqual(expected);
  expect(ordered(extractEntities(record, classifierGates.findAll(record.text)))).toEqual(expected);
  // As the classifier hands them: the automaton's reused scan result, read by index.
  expect(ordered(extractEntities(record, classifierGates.scan(record.text)))).toEqual(expected);
};

/** A record of one plain text line (a line that parses as something else is read as that, by both). */
const recordOfText = (text: string): LogRecord | undefined => parseMessage(text, { line: 1 });

/** Words that each text pattern matches, and near misses. */
const WORDS = [
  'subnet-0a1b2c3d4e5f60718',
  'subnet-0a1b2c3',
  'sg-0123456789abcdef0',
  'ami-0123456789abcdef0',
  'i-0123456789abcdef0',
  'i-0123456789abcdef0123',
  'vol-0123456789abcdef0',
  'pvc-0a1b2c3d-0a1b-0a1b-0a1b-0a1b2c3d4e5f',
  'us-west-2a',
  'eu-central-1b',
  'us-gov-east-1a',
  'us-isob-east-1a',
  'ap-northeast-3c',
  'us-isob-northeast-1a',
  'us-gov-southwest-1b',
  'ca-southwest-1x',
  'xx-us-east-1a',
  'm5.2xlarge',
  'c7g.metal',
  'c7g.metal-48xl',
  'u-24tb1.112xlarge',
  't3.nano',
  'ml.m5.large',
  'foo-m5.large',
  'x2iezn.6xlarge',
  'abcdefghi1abcdef.192xlarge',
  'abcdefghi1abcdef.nano',
  'a1.large',
  'ip-10-0-1-2.eu-west-1.compute.internal',
  'nodepool "gpu"',
  'NodePool: "batch"',
  'provisioner="default"',
  'external provisioner "ebs.csi.aws.com"',
  'storage-provisioner: "x"',
  'nodepool/spot-pool',
  'NodePool=batch',
  'nodeclaim/default-x7k2p',
  'Machine/default-x7k2p',
  'NodeClaim=default-q2w3e',
  'EC2NodeClass=default',
  'NodeClass=al2',
  'ec2nodeclass "al2023"',
  'EC2NodeClass.karpenter.k8s.aws "bottlerocket"',
  'awsnodetemplate "legacy"',
  'pods/eviction',
  'pods/web-0',
  'pod/api-1',
  'pod="shop/cart-7d9f8c6b5d-k2m4p"',
  'Pod "ml/train-0"',
  'pod default/web-6f7c9d8b4-x2x2x',
  'Pod=ml/train-0',
  'pod affinity/anti-affinity',
  'not all pods would schedule, ns/api-5d8f7b9c54-8zr7n =>',
  'taint {node.kubernetes.io/not-ready: }',
  'did not tolerate dedicated=gpu:NoSchedule;',
  'did not tolerate taint (taint=gpu:NoSchedule)',
  'label "topology.kubernetes.io/zone" does not have known values',
  'incompatible requirements, key karpenter.sh/capacity-type,',
  '3 Insufficient cpu.',
  '12 Insufficient nvidia.com/gpu,',
  'x3 Insufficient memory',
  'AttachVolume.Attach failed for volume "pvc-1"',
  'Multi-Attach error for volume "pv-2"',
  'pvc "data-0" with volume "pv-3"',
  'PersistentVolume=pv-1',
  'PDB "shop/cart" prevents pod evictions',
  'pdb \\"ns/name\\"',
  'PodDisruptionBudget(s)=[shop/a shop/b]',
  'PodDisruptionBudget=[ns/x, prose]',
  'VcpuLimitExceeded',
  'MaxSpotInstanceCountExceeded',
  'LimitExceeded',
  'RequestLimitExceeded',
  'InstanceLimitExceededExceeded',
  '2VcpuLimitExceeded',
  'InsufficientInstanceCapacity',
  'InsufficientFreeAddressesInSubnet',
  'Insufficient capacity',
  'UnfulfillableCapacity',
  'InvalidParameterValue.Malformed',
  'UnauthorizedOperation',
  'AccessDeniedException',
  'AuthFailure.ServiceLinkedRoleCreationNotPermitted',
  'ExpiredTokenException',
  'ThrottlingException',
  'perform: ec2:RunInstances',
  'perform ec2:CreateFleet',
  'operation error EC2: CreateFleet,',
  'selector map[karpenter.sh/discovery:prod]',
  'https://ec2.us-west-2.amazonaws.com',
  'http://sts.cn-north-1.amazonaws.com.cn',
  'image "mcr.microsoft.com/windows:ltsc2022"',
  'capacity-type In [spot',
  'Capacity-Type: "on-demand"',
  'system:serviceaccount:karpenter:karpenter',
  'arn="arn:aws:iam::111122223333:role/KarpenterNodeRole"',
  'arn:aws:sts::111122223333:assumed-role/KarpenterController/1700000000',
  'too many pods',
  'spot instances',
];

/** Every anchor literal and every gate, as written and in other cases. */
const LITERALS = [
  ...new Set(
    [
      ...TEXT_PATTERNS.flatMap(([, , , gates, anchors]) => [...gates, ...(anchors ?? []).map(([literal]) => literal)]),
    ].flatMap((literal) => [
      literal,
      literal.toLowerCase(),
      literal.toUpperCase(),
      literal[0]!.toUpperCase() + literal.slice(1),
    ]),
  ),
];

/** Characters at word boundaries and inside names, and a few that change length or case oddly. */
const BOUNDARY = [...' -./_"=:,;(){}[]\\\'0123456789aAzZfx', 'İ', 'K', 'ſ', 'é', '\u{1F600}'];

const piece = fc.oneof(
  { arbitrary: fc.constantFrom(...WORDS), weight: 4 },
  { arbitrary: fc.constantFrom(...LITERALS), weight: 4 },
  { arbitrary: fc.string({ unit: fc.constantFrom(...BOUNDARY), maxLength: 4 }), weight: 3 },
  { arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 1, maxLength: 18 }), weight: 1 },
  { arbitrary: fc.constantFrom(' ', '  ', '-', '.', '/', '"', '=', ', '), weight: 3 },
);
const generatedText = fc.array(piece, { maxLength: 14 }).map((pieces) => pieces.join(''));

/** The places an anchor says a match can start, read from the table as its comment defines them. */
function anchorPlaces(text: string, ignoreCase: boolean, [literal, start]: readonly [string, number]): Set<number> {
  const haystack = ignoreCase ? text.toLowerCase() : text;
  const word = (code: number) => /\w/.test(String.fromCharCode(code));
  const places = new Set<number>();
  for (let at = haystack.indexOf(literal); at !== -1; at = haystack.indexOf(literal, at + 1)) {
    if (start === 0) places.add(at);
    else if (start < 0) {
      let place = at;
      while (place > 0 && word(text.charCodeAt(place - 1))) place--;
      places.add(place);
    } else {
      for (let place = Math.max(0, at - start); place <= at; place++) {
        if (word(text.charCodeAt(place)) && (place === 0 || !word(text.charCodeAt(place - 1)))) places.add(place);
      }
    }
  }
  return places;
}

/** Matches of anchored patterns that start where none of their anchors says one can. */
function unanchoredMatches(text: string): string[] {
  if (text.length !== text.toLowerCase().length) return [];
  const missed: string[] = [];
  for (const [kind, pattern, , , anchors] of TEXT_PATTERNS) {
    if (!anchors) continue;
    const ignoreCase = pattern.flags.includes('i');
    const places = new Set(anchors.flatMap((anchor) => [...anchorPlaces(text, ignoreCase, anchor)]));
    for (const match of text.matchAll(new RegExp(pattern.source, pattern.flags))) {
      if (!places.has(match.index)) missed.push(`${kind} ${pattern.source.slice(0, 30)}: ${match[0]} in ${text}`);
    }
  }
  return missed;
}

describe('anchored text patterns', () => {
  it('every match of every anchored pattern starts where one of its anchors says, on every line of the project', () => {
    const missed = PROJECT_LINES.flatMap((line) => unanchoredMatches(parseMessage(line, { line: 1 })?.text ?? line));
    expect(missed).toEqual([]);
  });

  it('property: every match of every anchored pattern starts where one of its anchors says, on generated texts', () => {
    fc.assert(
      fc.property(generatedText, (text) => expect(unanchoredMatches(text)).toEqual([])),
      { numRuns: 5000 },
    );
  });

  it('an anchor of a pattern that ignores case is written in lower case (it is looked for in the lower-cased text)', () => {
    const upper = TEXT_PATTERNS.flatMap(([, pattern, , , anchors]) =>
      pattern.flags.includes('i') ? (anchors ?? []).filter(([literal]) => literal !== literal.toLowerCase()) : [],
    );
    expect(upper).toEqual([]);
  });

  it('every gate of an anchored pattern activates an anchor, or the pattern has one that needs no gate', () => {
    const inactive = TEXT_PATTERNS.flatMap(([kind, , , gates, anchors]) => {
      if (!anchors) return [];
      const holding = anchors.map(([literal]) => gates.filter((gate) => literal.toLowerCase().includes(gate)));
      if (holding.some((held) => held.length === 0)) return [];
      return gates.filter((gate) => !holding.some((held) => held[0] === gate)).map((gate) => `${kind}: ${gate}`);
    });
    expect(inactive).toEqual([]);
  });

  it('the patterns fit the two 32-bit words that mark them, and the anchors of each pattern one word', () => {
    expect(TEXT_PATTERNS.length).toBeLessThanOrEqual(64);
    expect(Math.max(...TEXT_PATTERNS.map(([, , , , anchors]) => anchors?.length ?? 0))).toBeLessThanOrEqual(32);
  });

  it('lower-casing keeps every place of a text but where U+0130 is (the anchors of case-blind patterns rely on it)', () => {
    const changed: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (char.toLowerCase().length !== char.length) changed.push(code);
    }
    expect(changed).toEqual([0x130]);
    expect('İ'.toLowerCase().length).toBe(2);
  });

  it('finds what the whole-text extractor finds with every word at every place of a line', () => {
    const line = 'Could not launch: InsufficientInstanceCapacity for pod default/web-0, us-west-2a';
    for (const word of WORDS) {
      for (let place = 0; place <= line.length; place++) {
        const texts = [
          line.slice(0, place) + word + line.slice(place),
          line.slice(0, place) + word + word + line.slice(place),
        ];
        if (place % 5 === 0)
          texts.push(line.slice(0, place) + word.toUpperCase() + ' ' + word.toLowerCase() + line.slice(place));
        for (const text of texts) {
          const record = recordOfText(text);
          if (record) sameAsReference(record);
        }
      }
    }
  });

  it('property: finds what the whole-text extractor finds on generated texts', () => {
    fc.assert(
      fc.property(generatedText, (text) => {
        const record = recordOfText(text);
        if (record) sameAsReference(record);
      }),
      { numRuns: 4000 },
    );
  });

  // The classifier's scan says where each gate is first and last (on an ASCII text), and the extractor
  // looks for an anchor's literal only between those places: texts where a word follows another of its
  // kind with nothing or one character between them put a match's end on the next literal's start.
  it('property: finds what the whole-text extractor finds where values of a kind follow each other closely', () => {
    const word = fc.constantFrom(...WORDS, ...LITERALS);
    // A literal, each time followed by another short value.
    const tail = fc.oneof(
      fc.constantFrom('a}', 'b}', 'x', 'y1', '0a1b2c3d4e', 'ab-1', '"gpu"', '"cpu"', 'q/w', 'r/s', ''),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefAZ-./:"}]'), maxLength: 18 }),
    );
    const runOf = fc
      .tuple(
        fc.oneof(
          {
            weight: 3,
            arbitrary: fc.constantFrom(
              ...TEXT_PATTERNS.flatMap(([, , , , anchors]) => anchors ?? []).map(([literal]) => literal),
            ),
          },
          { weight: 1, arbitrary: fc.constantFrom(...LITERALS) },
        ),
        fc.array(tail, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('', '', ' ', ',', '"', '/', '}', 'x'),
      )
      .map(([literal, tails, between]) => tails.map((t) => literal + t).join(between));
    fc.assert(
      fc.property(fc.array(fc.oneof(runOf, word), { minLength: 1, maxLength: 5 }), (runs) => {
        const record = recordOfText(runs.join(''));
        if (record) sameAsReference(record);
      }),
      { numRuns: 4000 },
    );
  });

  it('property: finds what the whole-text extractor finds on texts with many values of a kind (the cap of 25)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...WORDS), { minLength: 20, maxLength: 60 }),
        fc.integer(),
        (words, seed) => {
          const text = words
            .map((word, i) => word.replace(/[0-9]/g, (d) => String((Number(d) + i + seed) % 10)))
            .join(' ');
          const record = recordOfText(text);
          if (record) sameAsReference(record);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: finds what the whole-text extractor finds on the project lines with fresh names', () => {
    fc.assert(
      fc.property(outageLine, (line) => {
        const record = parseMessage(line, { line: 1 });
        if (record) sameAsReference(record);
      }),
      { numRuns: 3000 },
    );
  });
});
