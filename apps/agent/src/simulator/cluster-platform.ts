import type { DataPlaneName } from '@zw/core';
import type { ClusterReadings, Read } from '../cluster-reader.js';

/**
 * What the agent would read from a simulated cluster besides the watched objects (`/version` and the
 * data plane's configuration), so that a simulated snapshot's Kubernetes version and data plane come out
 * of the agent's own detection (cluster-profile.ts) exactly as a real cluster's would.
 */
export function simulatedReadings(kubernetesVersion: string, dataPlane: DataPlaneName): ClusterReadings {
  const [major, minor] = kubernetesVersion.split('.');
  const missing = { status: 'missing' } as const;
  const found = <T>(value: T): Read<T> => ({ status: 'found', value });
  const kubeProxy = found({
    'config.conf': 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ""\n',
  });
  const readings: ClusterReadings = {
    version: found({ major, minor, gitVersion: `v${kubernetesVersion}.4` }),
    kubeProxy,
    cilium: missing,
    antrea: missing,
    felix: missing,
    calicoInfo: missing,
    namespaces: found([]),
  };
  switch (dataPlane) {
    case 'cilium':
    case 'cilium-no-topology':
      return {
        ...readings,
        kubeProxy: missing,
        cilium: found({
          'kube-proxy-replacement': 'true',
          'enable-service-topology': String(dataPlane === 'cilium'),
        }),
      };
    case 'calico-ebpf':
    case 'calico-ebpf-legacy':
      return {
        ...readings,
        kubeProxy: missing,
        felix: found({ bpfEnabled: true }),
        calicoInfo: found({ calicoVersion: dataPlane === 'calico-ebpf' ? 'v3.32.2' : 'v3.30.4' }),
      };
    case 'antrea':
      return { ...readings, antrea: found({ 'antrea-agent.conf': 'antreaProxy:\n  enable: true\n' }) };
    case 'kube-proxy':
      return readings;
    default:
      throw new Error(`the simulator does not model the ${dataPlane} data plane`);
  }
}
