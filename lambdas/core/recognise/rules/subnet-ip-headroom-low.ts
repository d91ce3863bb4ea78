import { DOCS } from '../../advice/docs-links';
import { describeSubnetFacts, roomElsewhere } from '../../advice/subnets';
import subnetIpExhaustion from './subnet-ip-exhaustion';
import { defineRule } from './types';

export default defineRule({
  info: {
    id: 'subnet-ip-headroom-low',
    title: 'Karpenter subnets are running low on free IPs',
    shortTitle: 'subnets low on IPs',
    severity: 'high',
    source: 'proactive',
    family: 'network',
    emittedBy: 'headroom',
    recognises: 'free IPs in the discovered subnets under threshold, or forecast to run out within the horizon',
  },
  enrichment: ['subnets'],
  actions: ['plan-subnet-capacity'],
  escalatesOn: 'subnets',
  diagnose: (f) => {
    const facts = f.context.subnets ?? [];
    const low = f.all('subnets');
    const shown = low.length ? facts.filter((s) => low.includes(s.subnetId)) : facts;
    return {
      diagnosis:
        `${low.length > 1 ? 'Subnets' : 'The subnets'} Karpenter launches into ${low.length ? `(${f.list('subnets')}) ` : ''}` +
        `are running low on free IP addresses${describeSubnetFacts(shown, low)}. New nodes and pods will fail with ` +
        `InsufficientFreeAddressesInSubnet once they run out.${roomElsewhere(facts, low)}`,
      remediation: subnetIpExhaustion.diagnose(f).remediation,
      docs: [DOCS.vpcCidrs, DOCS.customNetworking],
    };
  },
});
