import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createTheme, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { routes } from './routes';

const queryClient = new QueryClient({
  defaultOptions: {
    // An error shows the API's message at once; a 4xx does not get better by retrying.
    queries: { retry: false, refetchOnWindowFocus: false },
  },
});

const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'md' });
const router = createBrowserRouter(routes, { basename: '/app' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
