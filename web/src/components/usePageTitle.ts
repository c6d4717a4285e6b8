import { useEffect } from 'react';
import { useCurrentProject } from '../api/project';

/**
 * The browser tab's title for a project screen whose name depends on what it loaded ("<address> ·
 * Contacts · <project name>"). A screen with a fixed name says it in its route's `handle.title`
 * instead (web/src/routes.tsx, components/AppFrame.tsx); its route then has no `handle.title`.
 */
export function usePageTitle(screen: string) {
  const { project } = useCurrentProject();
  const title = project ? `${screen} · ${project.name}` : screen;
  useEffect(() => {
    const before = document.title;
    document.title = title;
    return () => {
      document.title = before;
    };
  }, [title]);
}
