import * as kubernetes from '@kubernetes/client-node';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

/**
 * Checks a manifest as the API server would: against the Kubernetes OpenAPI schema of its kind (the
 * kubernetes-models validators: types, required fields, enums, formats), and, as the API server's strict
 * field validation does, that it names no field its kind does not have (@kubernetes/client-node's model
 * of every kind lists each field). Returns the problems; none means valid.
 */
type Manifest = { apiVersion?: string; kind?: string } & Record<string, unknown>;
type Validator = new (data: never) => { validate(): void };

const SCHEMAS: Record<string, { model: Validator; clientType: string | null }> = {
  'v1/ConfigMap': { model: ConfigMap, clientType: 'V1ConfigMap' },
  'v1/Secret': { model: Secret, clientType: 'V1Secret' },
  'v1/Service': { model: Service, clientType: 'V1Service' },
  'v1/ServiceAccount': { model: ServiceAccount, clientType: 'V1ServiceAccount' },
  'apps/v1/Deployment': { model: Deployment, clientType: 'V1Deployment' },
  'autoscaling/v2/HorizontalPodAutoscaler': { model: HorizontalPodAutoscaler, clientType: 'V2HorizontalPodAutoscaler' },
  'batch/v1/Job': { model: Job, clientType: 'V1Job' },
  'networking.k8s.io/v1/Ingress': { model: Ingress, clientType: 'V1Ingress' },
  'policy/v1/PodDisruptionBudget': { model: PodDisruptionBudget, clientType: 'V1PodDisruptionBudget' },
  'rbac.authorization.k8s.io/v1/ClusterRole': { model: ClusterRole, clientType: 'V1ClusterRole' },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { model: ClusterRoleBinding, clientType: 'V1ClusterRoleBinding' },
  'rbac.authorization.k8s.io/v1/Role': { model: Role, clientType: 'V1Role' },
  'rbac.authorization.k8s.io/v1/RoleBinding': { model: RoleBinding, clientType: 'V1RoleBinding' },
  // Custom resources: their CRDs' schemas (prometheus-operator's and KEDA's models); client-node has no
  // model of them.
  'monitoring.coreos.com/v1/ServiceMonitor': { model: ServiceMonitor, clientType: null },
  'monitoring.coreos.com/v1/PrometheusRule': { model: PrometheusRule, clientType: null },
  'keda.sh/v1alpha1/ScaledObject': { model: ScaledObject, clientType: null },
  'keda.sh/v1alpha1/TriggerAuthentication': { model: TriggerAuthentication, clientType: null },
};

export function validateManifest(manifest: Manifest): string[] {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const schema = SCHEMAS[key];
  if (!schema) return [`no Kubernetes schema known for ${key}`];
  const problems: string[] = [];
  try {
    new schema.model(manifest as never).validate();
  } catch (error) {
    problems.push(`${key}: ${(error as Error).message}`);
  }
  if (schema.clientType) problems.push(...unknownFields(manifest, schema.clientType, key));
  return problems;
}

interface ModelClass {
  attributeTypeMap: { baseName: string; type: string }[];
}

function modelOf(type: string): ModelClass | undefined {
  const candidate = (kubernetes as unknown as Record<string, unknown>)[type] as Partial<ModelClass> | undefined;
  return candidate && Array.isArray(candidate.attributeTypeMap) ? (candidate as ModelClass) : undefined;
}

function unknownFields(value: unknown, type: string, path: string): string[] {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    return Array.isArray(value)
      ? value.flatMap((item, index) => unknownFields(item, array[1]!, `${path}[${index}]`))
      : [];
  }
  const model = modelOf(type);
  if (!model || value === null || typeof value !== 'object') return []; // a scalar, a map or IntOrString
  const fields = new Map(model.attributeTypeMap.map((field) => [field.baseName, field.type]));
  return Object.entries(value).flatMap(([name, child]) => {
    const childType = fields.get(name);
    if (childType === undefined) return [`${path}.${name}: unknown field (${type} has no such field)`];
    return unknownFields(child, childType, `${path}.${name}`);
  });
}
