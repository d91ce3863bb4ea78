/** The EC2 vCPU quota for an instance family (Service Quotas codes for EC2); the enrichment reads its value. */
export function ec2QuotaFor(
  code: string | undefined,
  instanceType: string | undefined,
): { code: string; name: string } {
  const spot = code === 'MaxSpotInstanceCountExceeded';
  const family = instanceType?.split('.')[0]?.replace(/\d.*$/, '') ?? '';
  if (family === 'g' || family === 'vt') {
    return spot
      ? { code: 'L-3819A6DF', name: 'All G and VT Spot Instance Requests' }
      : { code: 'L-DB2E81BA', name: 'Running On-Demand G and VT instances' };
  }
  if (family === 'p') {
    return spot
      ? { code: 'L-7212CCBC', name: 'All P Spot Instance Requests' }
      : { code: 'L-417A185B', name: 'Running On-Demand P instances' };
  }
  return spot
    ? { code: 'L-34B43A08', name: 'All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests' }
    : { code: 'L-1216C47A', name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances' };
}
