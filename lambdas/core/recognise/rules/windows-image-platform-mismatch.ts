import { changeTemplateStep } from '../../advice/workload-steps';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule, seedSection } from './types';

/** Windows Server LTSC image tags and the host build they need (node.kubernetes.io/windows-build). */
const WINDOWS_BUILDS: ReadonlyArray<readonly [string, string]> = [
  ['ltsc2019', '10.0.17763'],
  ['ltsc2022', '10.0.20348'],
  ['ltsc2025', '10.0.26100'],
];

export default defineRule({
  info: {
    id: 'windows-image-platform-mismatch',
    title: 'Windows container image does not match the node OS version',
    shortTitle: 'Windows image OS mismatch',
    severity: 'medium',
    source: 5,
    family: 'workload',
    emittedBy: 'logs',
    recognises: '"no match for platform in manifest" when pulling a Windows image',
    keyEntity: 'workloads',
  },
  perWorkloadCause: 'images',
  recognition: {
    clauses: [
      ...anyOf(
        'no match for platform in manifest',
        'container operating system does not match the host operating system',
      ),
      ['image operating system', 'cannot be used on this platform'],
    ],
  },
  diagnose: (f) => {
    const image = f.all('images')[0] ?? '';
    const build = WINDOWS_BUILDS.find(([tag]) => image.includes(tag))?.[1] ?? '<windows-build>';
    return {
      diagnosis:
        `The Windows image${f.where('images', '')} has no variant for the node's Windows version, so the pull fails with ` +
        `"no match for platform in manifest". Windows containers must match the host OS build.`,
      remediation: [
        {
          title: 'See the Windows builds of the nodes',
          detail:
            'Nodes carry their build in the node.kubernetes.io/windows-build label: 10.0.17763 is Windows Server 2019, 10.0.20348 Server 2022, 10.0.26100 Server 2025. ' +
            // AMI aliases came with v1; before, amiFamily named the Windows release (v0.31 and v0.37 docs).
            (f.forV1
              ? 'The EC2NodeClass amiSelectorTerms (alias windows2019@latest, windows2022@latest or windows2025@latest; Server 2025 needs Karpenter v1.9 or later and EKS 1.35 or later) decide which build Karpenter launches.'
              : 'The EC2NodeClass amiFamily (Windows2019 or Windows2022) decides which build Karpenter launches; Server 2025 nodes need Karpenter v1.9 or later (its windows2025@latest AMI alias).'),
          commands: ['kubectl get nodes -l kubernetes.io/os=windows -L node.kubernetes.io/windows-build'],
        },
        changeTemplateStep(
          f,
          'Pin the pods to nodes of the matching build',
          `Add a nodeSelector to the pod template, or rebuild the image for the nodes' build (a multi-arch manifest with ltsc2019, ltsc2022 and ltsc2025 variants runs on all):\nnodeSelector:\n  kubernetes.io/os: windows\n  node.kubernetes.io/windows-build: '${build}'`,
        ),
      ],
      docs: [DOCS.windows],
    };
  },
  examples: {
    fires: [
      {
        line: 'Failed to pull image "mcr.microsoft.com/windows/servercore:xxx": rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:xxx": no match for platform in manifest: not found',
        source: seedSection(5),
      },
      {
        line: 'Warning Failed 11s kubelet Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2022": rpc error: code = NotFound desc = failed to pull and unpack image "mcr.microsoft.com/windows/servercore:ltsc2022": no match for platform in manifest: not found',
        source:
          'https://github.com/microsoft/Windows-Containers/issues/223 (test/fixtures/karpenter-samples.jsonl ref-038)',
      },
    ],
    silent: [
      {
        line: 'Normal  Pulled  pod/win-1  kubelet  Successfully pulled image "mcr.microsoft.com/windows/servercore:ltsc2022" in 2m1s',
        source: "constructed from kubelet's 'Successfully pulled image %q in %v'",
      },
    ],
  },
});
