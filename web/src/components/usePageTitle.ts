import { useEffect } from 'react';
import { useCurrentProject } from '../api/project';

/**
 * The browser tab's title for a project screen: "Suppressions · <project name>", so a person with
 * several tabs (or a screen reader announcing the page) knows which screen of which project it is.
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
