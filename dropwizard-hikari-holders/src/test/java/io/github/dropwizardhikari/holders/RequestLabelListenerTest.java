package io.github.dropwizardhikari.holders;

import org.glassfish.jersey.uri.UriTemplate;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RequestLabelListenerTest {
    @Test
    void theTemplatesMatchedJoinFromTheRootWithOneSlashBetween() {
        // Jersey lists the method's template first, the resource class's last
        assertThat(RequestLabelListener.template(List.of(new UriTemplate("{id}/"), new UriTemplate("/reports/"))))
            .isEqualTo("/reports/{id}");
        assertThat(RequestLabelListener.template(List.of(new UriTemplate("/"), new UriTemplate("/people"))))
            .isEqualTo("/people");
        assertThat(RequestLabelListener.template(List.of())).isEqualTo("/");
    }

    @Test
    void noMatchedMethodNamesNoHolder() {
        assertThat(RequestLabelListener.holder(null)).isNull();
    }
}
