import { useQuery } from '@tanstack/react-query';
import { get } from './api';
import type { Identity } from './auth';

/** The signed-in caller's organization and role (`GET /v1/me`), shared by every page. */
export function useIdentity() {
  return useQuery({ queryKey: ['me'], queryFn: () => get<Identity>('/v1/me'), staleTime: 60_000 });
}
