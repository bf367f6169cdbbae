import { notifyManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { App } from './app';
import { ApiError } from './api';
import { prefetchOnNavigation } from './critical-queries';
import './styles.css';

// An answer is drawn in the task that parsed it, not in a timer task queued after it (the default),
// which waits behind whatever the browser does meanwhile: frames, other tasks.
notifyManager.setScheduler(queueMicrotask);

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // A problem answer (4xx) is the answer: retrying it only delays showing its detail.
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Router aroundNav={prefetchOnNavigation(queryClient)}>
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
