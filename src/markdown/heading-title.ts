import type { Heading, PhrasingContent } from 'mdast';
import { factOf } from './parse.js';

/**
 * The words of a body's first heading, as a title: images, badges (a link around only an image), HTML and
 * line breaks left out, spaces collapsed. A README's `# gray-matter [![NPM version](...)](...)` is titled
 * `gray-matter`, not with the badges' alt texts. Undefined when there is no heading with words.
 */
export const headingTitle = (body: string): string | undefined => {
  const plain = plainFirstHeading(body);
  return plain === null ? parsedHeadingTitle(body) : plain;
};

/**
 * An ATX heading that is the body's first line (blank lines aside) and holds nothing Markdown reads
 * inline (no emphasis, code, link, image, HTML, entity or escape character, no closing #s): its words
 * are its characters, so the title needs no parse. A push titles every new file before it sends
 * anything, so the parse it saves is off the path to the first call. Null when that cannot be told
 * this way (the parse decides).
 */
export function plainFirstHeading(body: string): string | null {
  const match = /^(?:[ \t]*\n)*[ ]{0,3}#{1,6}[ ]+([^\n]*)(?:\n|$)/.exec(body);
  const words = match?.[1]?.replace(/\s+/g, ' ').trim();
  if (!words || !/^[\p{L}\p{N} .,:;?'"/()%+=@-]+$/u.test(words)) return null;
  return words;
}

export const parsedHeadingTitle = factOf((tree): string | undefined => {
  for (const node of tree.children) {
    if (node.type !== 'heading') continue;
    const words = wordsOf((node as Heading).children).replace(/\s+/g, ' ').trim();
    if (words !== '') return words;
  }
  return undefined;
});

function wordsOf(nodes: readonly PhrasingContent[]): string {
  return nodes
    .map((node) => {
      switch (node.type) {
        case 'text':
        case 'inlineCode':
          return node.value;
        case 'image':
        case 'imageReference':
        case 'html':
          return ' ';
        case 'break':
          return ' ';
        case 'link':
        case 'linkReference':
          // A badge: a link whose only content is an image.
          return node.children.every((child) => child.type === 'image' || child.type === 'imageReference') ? ' ' : wordsOf(node.children);
        default:
          return 'children' in node ? wordsOf(node.children as PhrasingContent[]) : '';
      }
    })
    .join('');
}
